import { Injectable } from '@nestjs/common';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import { accountDecider, accountStream, type RetryPolicy, retryPolicyOf } from '../domain/account.decider.js';

/**
 * For other contexts (collections, subscriptions, the scheduler): the dunning policy of an account.
 * Reads the account's stream, not a read model, so the answer is never behind a policy change that
 * has been written.
 */
@Injectable()
export class AccountRetryPolicy {
  constructor(private readonly executor: AggregateExecutor) {}

  /** The account's policy (a copy); `DEFAULT_RETRY_POLICY` when it never set one or does not exist. */
  async policy(accountId: string): Promise<RetryPolicy> {
    const { state } = await this.executor.load(accountDecider, accountStream(accountId));
    return retryPolicyOf(state);
  }
}
