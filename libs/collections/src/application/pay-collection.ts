import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { ownedBy } from '#shared/owner.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { DomainError, invalidParam, notFound, paymentFailed } from '#shared/errors.js';
import { customerDecider, customerStream, refuseErased } from '#customers/domain/customer.decider.js';
import { ResolvePaymentSource } from '#payments/application/resolve-payment-source.js';
import { OFFLINE_GATEWAY } from '#payments/domain/gateways.js';
import type { PaymentInformation } from '#payments/gateways/payment-gateway.port.js';
import { type PaymentSource, collectionDecider, collectionStream } from '../domain/collection.decider.js';
import { type AttemptResult, CollectionPayments } from './collection-payments.js';
import { onCollection } from './collection-command.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { TestClockTime } from '#test-clocks/application/test-clock-time.js';

export interface PayCollectionBody {
  payment_method?: string;
  payment_information?: PaymentInformation;
  paid_out_of_band?: boolean;
  out_of_band_proof?: string;
}

export class PayCollectionCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly collectionId: string,
    readonly body: PayCollectionBody,
    /** `customer` when the customer pays on the hosted page (test helper), else the merchant. */
    readonly initiatedBy: 'merchant' | 'customer' = 'merchant',
  ) {}
}

/** A failed attempt as the API reports it: 402 with the decline, the attempt recorded on the collection. */
export function throwIfFailed(result: AttemptResult, collectionId: string): void {
  if (result.outcome !== 'failed' || !result.failure) return;
  const f = result.failure;
  throw paymentFailed(f.failure_code, f.failure_message, { decline_code: f.decline_code, collection: collectionId, charge: f.charge, transaction: f.transaction });
}

/**
 * Pays a collection: with a stored `payment_method`, with one-off `payment_information`, with the
 * customer's default method when neither is sent, or out of band (`paid_out_of_band` + optional
 * `out_of_band_proof`, no gateway involved).
 */
@CommandHandler(PayCollectionCommand)
export class PayCollectionHandler implements ICommandHandler<PayCollectionCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly sources: ResolvePaymentSource,
    private readonly payments: CollectionPayments,
    private readonly projections: ProjectionEngine,
    private readonly clocks: TestClockTime,
  ) {}

  async execute({ ctx: request, collectionId, body, initiatedBy }: PayCollectionCommand): Promise<CommandResult> {
    const { state } = await this.executor.load(collectionDecider, collectionStream(collectionId));
    if (!ownedBy(state, request)) throw notFound('collection', collectionId);
    // Decided (and its follow-ups) at the collection's test clock's time, when it lives on one.
    const ctx = await this.clocks.contextFor(request, state.fields!.test_clock);
    const customerId = state.fields!.customer;
    if (body.paid_out_of_band) {
      if (body.payment_method || body.payment_information) {
        throw invalidParam('paid_out_of_band', 'paid_out_of_band cannot be combined with payment_method or payment_information');
      }
      // The customer chose an offline method (a bank transfer named by the merchant) and its attempt
      // awaits them: the merchant's record of the payment is that attempt's outcome (`charge.paid`,
      // `collection.paid` and their follow-ups, as a gateway's notification would record them).
      const offline = state.fields!.status === 'processing' ? state.transactions.find((t) => t.status === 'pending' && t.source.gateway === OFFLINE_GATEWAY) : undefined;
      const charge = offline?.charges.find((c) => c.status === 'pending');
      if (charge) {
        const recorded = await this.payments.record(ctx, collectionId, charge.id, { status: 'succeeded', gateway_reference: `offline_${charge.id}` });
        return { id: collectionId, position: recorded.position };
      }
      return onCollection(this.executor, ctx, collectionId, (now) => ({ type: 'PayOutOfBand', owner: ctx, collectionId, proof: body.out_of_band_proof ?? null, now }));
    }
    if (body.out_of_band_proof !== undefined) throw invalidParam('out_of_band_proof', 'out_of_band_proof needs paid_out_of_band: true');
    if (body.payment_method && body.payment_information) {
      throw invalidParam('payment_information', 'payment_method and payment_information are mutually exclusive; send only one');
    }
    // An erased customer can no longer be charged (409 customer_erased; docs/personal-data.md); an out-of-band payment is still recorded.
    refuseErased((await this.executor.load(customerDecider, customerStream(customerId))).state, customerId);
    let source: PaymentSource;
    if (body.payment_information) source = await this.sources.oneOff(ctx, body.payment_information, customerId);
    else if (body.payment_method) source = await this.sources.stored(ctx, customerId, body.payment_method);
    else {
      const customer = await this.executor.load(customerDecider, customerStream(customerId));
      const fallback = customer.state.fields?.default_payment_method ?? null;
      if (!fallback) {
        throw new DomainError('payment_method_required', `Customer ${customerId} has no default payment method; send payment_method or payment_information`, 'payment_method', 400);
      }
      source = await this.sources.stored(ctx, customerId, fallback);
    }
    const result = await this.payments.attempt(ctx, collectionId, source, initiatedBy);
    if (result.outcome === 'failed') await this.projections.waitFor(result.position); // the 402 names objects a GET must show
    throwIfFailed(result, collectionId);
    return { id: collectionId, position: result.position };
  }
}
