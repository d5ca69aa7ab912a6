import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { ownedBy } from '#shared/owner.js';
import { AccountGateways } from '#accounts/application/account-gateways.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { newId } from '#shared/ids.js';
import { invalidParam, notFound } from '#shared/errors.js';
import type { MetaData } from '#shared/meta-data.js';
import { customerDecider, customerStream } from '#customers/domain/customer.decider.js';
import { type CardDetails, paymentMethodDecider, paymentMethodStream } from '../domain/payment-method.decider.js';

export interface MigratePaymentMethodBody {
  customer: string;
  gateway: string;
  type: string;
  token: string;
  card?: CardDetails;
  wallet?: { account_last4: string };
  default?: boolean;
  meta_data?: MetaData;
}

export class MigratePaymentMethodCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly body: MigratePaymentMethodBody,
  ) {}
}

/**
 * Imports a gateway token stored by another system (no charge, no verification): a payment method
 * with `source: migration`. `default: true` (or a customer without a default) makes it the default.
 */
@CommandHandler(MigratePaymentMethodCommand)
export class MigratePaymentMethodHandler implements ICommandHandler<MigratePaymentMethodCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly gateways: AccountGateways,
  ) {}

  async execute({ ctx, body }: MigratePaymentMethodCommand): Promise<CommandResult> {
    const customer = await this.executor.load(customerDecider, customerStream(body.customer));
    if (!ownedBy(customer.state, ctx)) {
      throw notFound('customer', body.customer, 'customer');
    }
    await this.gateways.assertConfigured(ctx.accountId, ctx.mode, body.gateway);
    if (body.type === 'card' && !body.card) throw invalidParam('card', 'card (brand, last4, exp_month, exp_year) is required for card methods');
    const paymentMethodId = newId('pm');
    const created = await this.executor.execute(
      paymentMethodDecider,
      paymentMethodStream(paymentMethodId),
      (now) => ({
        type: 'CreatePaymentMethod' as const,
        owner: ctx,
        paymentMethodId,
        token: body.token,
        fields: {
          customer: body.customer,
          gateway: body.gateway,
          type: body.type,
          card: body.card ?? null,
          wallet: body.wallet ?? null,
          source: 'migration' as const,
          meta_data: body.meta_data,
        },
        now,
      }),
      ctx,
    );
    const defaulted = await this.executor.execute(
      customerDecider,
      customerStream(body.customer),
      (now) => ({ type: 'SetDefaultPaymentMethod' as const, owner: ctx, customerId: body.customer, paymentMethodId, onlyIfUnset: !body.default, now }),
      ctx,
    );
    return { id: paymentMethodId, position: defaulted.position ?? created.position };
  }
}
