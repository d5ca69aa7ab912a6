import { Inject, Injectable } from '@nestjs/common';
import { ownedBy } from '#shared/owner.js';
import { AccountGateways } from '#accounts/application/account-gateways.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { DomainError, invalidParam, missingParam, notFound } from '#shared/errors.js';
import { newId } from '#shared/ids.js';
import type { PaymentSource } from '#collections/domain/collection.decider.js';
import { gatewayOffers, isGatewayId, isTokenizable } from '../domain/gateways.js';
import { NO_PAYMENT_METHOD, type Unattemptable, cardExpired } from '../domain/automatic-charge.js';
import { paymentMethodDecider, paymentMethodStream } from '../domain/payment-method.decider.js';
import { ReadModels } from '#platform/read-models.js';
import type { PaymentMethodDoc } from '../read-models/payment-method.read-model.js';
import { PAYMENT_GATEWAY, type PaymentGateway, type PaymentInformation } from '../gateways/payment-gateway.port.js';

/**
 * Turns what a caller sends (a stored `payment_method`, or one-off `payment_information`) into the
 * source a payment attempt uses: the gateway must be configured on the account, the method offered
 * by the gateway, a stored method must belong to the customer; tokenizable data is tokenized here
 * (raw card data goes no further than the gateway).
 */
@Injectable()
export class ResolvePaymentSource {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly gateways: AccountGateways,
    private readonly readModels: ReadModels,
    @Inject(PAYMENT_GATEWAY) private readonly gateway: PaymentGateway,
  ) {}

  /** A stored method of `customerId` that can be charged automatically (param names the field for errors). */
  async stored(ctx: CommandContext, customerId: string, paymentMethodId: string, param = 'payment_method'): Promise<PaymentSource> {
    const { state } = await this.executor.load(paymentMethodDecider, paymentMethodStream(paymentMethodId));
    const f = state.fields;
    if (!f || !ownedBy(state, ctx)) {
      throw notFound('payment method', paymentMethodId, param);
    }
    if (f.customer !== customerId) throw invalidParam(param, `Payment method ${paymentMethodId} does not belong to customer ${customerId}`);
    if (f.status !== 'active') throw invalidParam(param, `Payment method ${paymentMethodId} is detached and cannot be charged`);
    await this.gateways.assertConfigured(ctx.accountId, ctx.mode, f.gateway, param);
    return { payment_method: paymentMethodId, gateway: f.gateway, type: f.type, token: state.token, details: {}, save_as: null };
  }

  /**
   * What an automatic attempt charges: the first of `methodIds` (the subscription's method, then the
   * customer's default) that can be charged at `ctx.now`; else why none can (the first candidate's
   * reason: deleted or unknown → `payment_method_missing`, an expired card → `expired_card`, its gateway
   * removed from the account → `gateway_not_configured`; no candidate → `payment_method_missing`).
   */
  async automatic(ctx: CommandContext, customerId: string, methodIds: (string | null | undefined)[], now: Date): Promise<{ source: PaymentSource } | { failure: Unattemptable }> {
    let first: Unattemptable | null = null;
    for (const id of [...new Set(methodIds.filter((m): m is string => !!m))]) {
      let source: PaymentSource;
      try {
        source = await this.stored(ctx, customerId, id);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        first ??=
          error.code === 'gateway_not_configured'
            ? { failure_code: 'gateway_not_configured', failure_message: `The gateway of payment method ${id} is no longer configured on the account.` }
            : { failure_code: 'payment_method_missing', failure_message: `Payment method ${id} cannot be charged: ${error.message}` };
        continue;
      }
      const { state } = await this.executor.load(paymentMethodDecider, paymentMethodStream(id));
      if (cardExpired(state.fields?.card, now)) {
        first ??= { failure_code: 'expired_card', failure_message: `The card of payment method ${id} expired (${state.fields!.card!.exp_month}/${state.fields!.card!.exp_year}).` };
        continue;
      }
      return { source };
    }
    return { failure: first ?? NO_PAYMENT_METHOD };
  }

  private async savedWithFingerprint(ctx: CommandContext, customerId: string, info: PaymentInformation, fingerprint: string): Promise<string | null> {
    const [match] = await this.readModels.store.find<PaymentMethodDoc>('payment_methods', {
      where: { _account: ctx.accountId, is_test: ctx.mode === 'test', _deleted: false, customer: customerId, gateway: info.gateway, type: info.type, fingerprint },
      orderBy: { field: '_created', direction: 'desc' },
      limit: 1,
    });
    return match?.id ?? null;
  }

  /** Whether `paymentMethodId` is an active stored method of the customer (for the subscription decider). */
  async usable(ctx: CommandContext, customerId: string, paymentMethodId: string | null | undefined): Promise<boolean> {
    return (await this.storedIfUsable(ctx, customerId, paymentMethodId)) !== null;
  }

  /** The stored source when `paymentMethodId` is a usable method of the customer, else null (an unconfigured gateway still throws). */
  async storedIfUsable(ctx: CommandContext, customerId: string, paymentMethodId: string | null | undefined): Promise<PaymentSource | null> {
    if (!paymentMethodId) return null;
    try {
      return await this.stored(ctx, customerId, paymentMethodId);
    } catch (error) {
      if (error instanceof DomainError && error.code === 'gateway_not_configured') throw error;
      return null;
    }
  }


  /**
   * One-off `payment_information`: checked, tokenized when it can be, and saved once a charge succeeds
   * — unless `customerId` already has this card or wallet saved (same fingerprint at the same gateway),
   * in which case that saved method is charged and no second one is made.
   */
  async oneOff(ctx: CommandContext, info: PaymentInformation, customerId: string | null, param = 'payment_information'): Promise<PaymentSource> {
    if (!info || typeof info !== 'object') throw invalidParam(param, `${param} must be an object`);
    if (!info.gateway) throw missingParam(`${param}[gateway]`);
    if (!info.type) throw missingParam(`${param}[type]`);
    if (!isGatewayId(info.gateway)) throw invalidParam(`${param}[gateway]`, `Unknown gateway ${info.gateway}`);
    await this.gateways.assertConfigured(ctx.accountId, ctx.mode, info.gateway, `${param}[gateway]`);
    if (!gatewayOffers(info.gateway, info.type)) throw invalidParam(`${param}[type]`, `${info.gateway} does not offer ${info.type}`);
    if (isTokenizable(info.type)) {
      const tokenized = await this.gateway.tokenize(ctx.mode, info, param);
      const saved = customerId && tokenized.fingerprint ? await this.savedWithFingerprint(ctx, customerId, info, tokenized.fingerprint) : null;
      if (saved) return this.stored(ctx, customerId!, saved, param);
      return {
        payment_method: null,
        gateway: info.gateway,
        type: info.type,
        token: tokenized.token,
        details: {},
        save_as: { payment_method_id: newId('pm'), card: tokenized.card, wallet: tokenized.wallet, fingerprint: tokenized.fingerprint },
      };
    }
    if (info.card || info.wallet) throw invalidParam(`${param}[type]`, `${info.type} takes no card or wallet data`);
    if (info.type === 'pse' && !info.bank_code) throw missingParam(`${param}[bank_code]`, `${param}[bank_code] is required for pse payments`);
    return {
      payment_method: null,
      gateway: info.gateway,
      type: info.type,
      token: null,
      details: info.bank_code ? { bank_code: String(info.bank_code) } : {},
      save_as: null,
    };
  }
}
