import { Injectable } from '@nestjs/common';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { customerDecider, customerStream } from '#customers/domain/customer.decider.js';
import type { PaymentSource } from '#collections/domain/collection.decider.js';
import { type CardDetails, paymentMethodDecider, paymentMethodStream } from '../domain/payment-method.decider.js';

/**
 * After a successful charge with one-off tokenizable data: store the method against the customer
 * (idempotent: its id was chosen when the attempt started) and make it the default when the customer
 * has none. Returns the position of the last event written, if any.
 */
@Injectable()
export class SavePaymentMethod {
  constructor(private readonly executor: AggregateExecutor) {}

  async afterPayment(ctx: CommandContext, customerId: string, source: PaymentSource): Promise<string | null> {
    if (!source.save_as || !source.token) return null;
    const id = source.save_as.payment_method_id;
    const created = await this.executor.execute(
      paymentMethodDecider,
      paymentMethodStream(id),
      (now) => ({
        type: 'CreatePaymentMethod' as const,
        owner: ctx,
        paymentMethodId: id,
        token: source.token!,
        fields: {
          customer: customerId,
          gateway: source.gateway,
          type: source.type,
          card: (source.save_as!.card as CardDetails | null) ?? null,
          wallet: (source.save_as!.wallet as { account_last4: string } | null) ?? null,
          fingerprint: source.save_as!.fingerprint ?? null,
          source: 'payment' as const,
        },
        now,
      }),
      ctx,
    );
    const defaulted = await this.executor.execute(
      customerDecider,
      customerStream(customerId),
      (now) => ({ type: 'SetDefaultPaymentMethod' as const, owner: ctx, customerId, paymentMethodId: id, onlyIfUnset: true, now }),
      ctx,
    );
    return defaulted.position ?? created.position;
  }
}
