import { Injectable } from '@nestjs/common';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import { DomainError } from '#shared/errors.js';
import { gatewayNotConfiguredMessage } from '#payments/domain/gateways.js';
import { accountDecider, accountStream, configuredGateways } from '../domain/account.decider.js';
import type { Mode } from '../domain/api-key.js';

/**
 * For other contexts (payments, collections, subscriptions): which gateways an account has
 * configured in a mode. Reads the account's stream, not a read model, so the answer is never behind
 * a configuration change that has been written.
 */
@Injectable()
export class AccountGateways {
  constructor(private readonly executor: AggregateExecutor) {}

  /** The configured gateway ids in `mode`, in catalogue order; [] for an account that does not exist. */
  async configured(accountId: string, mode: Mode): Promise<string[]> {
    const { state } = await this.executor.load(accountDecider, accountStream(accountId));
    return configuredGateways(state, mode);
  }

  /** 400 `gateway_not_configured` (naming `param`) unless `gateway` is configured on the account in `mode`. */
  async assertConfigured(accountId: string, mode: Mode, gateway: string, param = 'gateway'): Promise<void> {
    if (!(await this.configured(accountId, mode)).includes(gateway)) {
      throw new DomainError('gateway_not_configured', gatewayNotConfiguredMessage(gateway), param, 400);
    }
  }
}
