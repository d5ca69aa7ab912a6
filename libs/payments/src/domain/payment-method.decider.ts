import { Decider, DomainEvent } from '#shared/decider.js';
import { ownedBy } from '#shared/owner.js';
import { invalidParam, invalidState, notFound } from '#shared/errors.js';
import { type MetaData, checkMetaData, mergeMetaData } from '#shared/meta-data.js';
import type { Owner } from '#shared/owner.js';
import { gatewayOffers, isGatewayId, isTokenizable } from './gateways.js';

export interface CardDetails {
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
}

/** A stored (tokenized) payment method. The token itself never leaves the event store. */
export interface PaymentMethodFields {
  customer: string;
  gateway: string;
  type: string;
  card: CardDetails | null;
  wallet: { account_last4: string } | null;
  /** The gateway's fingerprint of the card or wallet account: one saved method per fingerprint and customer. */
  fingerprint: string | null;
  /** `payment` (saved from a paid attempt), `migration` (imported). */
  source: 'payment' | 'migration';
  status: 'active' | 'detached';
  meta_data: MetaData;
}

export interface PaymentMethodChanges {
  exp_month?: number;
  exp_year?: number;
  meta_data?: MetaData;
}

export type PaymentMethodCommand =
  | {
      type: 'CreatePaymentMethod';
      owner: Owner;
      paymentMethodId: string;
      fields: Omit<PaymentMethodFields, 'status' | 'meta_data' | 'fingerprint'> & { meta_data?: MetaData; fingerprint?: string | null };
      token: string;
      now: Date;
    }
  | { type: 'UpdatePaymentMethod'; owner: Owner; paymentMethodId: string; changes: PaymentMethodChanges; now: Date }
  | { type: 'DeletePaymentMethod'; owner: Owner; paymentMethodId: string; now: Date };

export type PaymentMethodCreated = DomainEvent<
  'payment_method.created',
  PaymentMethodFields & { id: string; account_id: string; is_test: boolean; created_at: string; token: string }
>;
export type PaymentMethodUpdated = DomainEvent<'payment_method.updated', { id: string; customer: string; changes: PaymentMethodChanges }>;
export type PaymentMethodDeleted = DomainEvent<'payment_method.deleted', { id: string; customer: string; deleted_at: string }>;
export type PaymentMethodEvent = PaymentMethodCreated | PaymentMethodUpdated | PaymentMethodDeleted;

export interface PaymentMethodState {
  exists: boolean;
  owner: Owner | null;
  fields: PaymentMethodFields | null;
  token: string | null;
}

export const paymentMethodStream = (id: string) => `paymentmethod-${id}`;

export function applyPaymentMethodChanges<F extends PaymentMethodFields>(fields: F, changes: PaymentMethodChanges): F {
  const { meta_data, exp_month, exp_year } = changes;
  return {
    ...fields,
    card: fields.card && (exp_month !== undefined || exp_year !== undefined)
      ? { ...fields.card, exp_month: exp_month ?? fields.card.exp_month, exp_year: exp_year ?? fields.card.exp_year }
      : fields.card,
    meta_data: meta_data ? mergeMetaData(fields.meta_data, meta_data) : fields.meta_data,
  };
}

/** Payment methods: created from a paid attempt or imported; card expiry and meta_data updatable; detached on delete. */
export const paymentMethodDecider: Decider<PaymentMethodCommand, PaymentMethodState, PaymentMethodEvent> = {
  initialState: { exists: false, owner: null, fields: null, token: null },

  decide(command, state) {
    if (command.type === 'CreatePaymentMethod') {
      if (state.exists) return []; // created once: a replayed save is harmless
      const f = command.fields;
      if (!isGatewayId(f.gateway)) throw invalidParam('gateway', `Unknown gateway ${f.gateway}`);
      if (f.gateway === 'offline') throw invalidParam('gateway', 'offline payments cannot be stored as a payment method');
      if (!isTokenizable(f.type)) throw invalidParam('type', `${f.type} payment methods cannot be stored; only card, wallet_a and wallet_b can`);
      if (!gatewayOffers(f.gateway, f.type)) throw invalidParam('type', `${f.gateway} does not offer ${f.type}`);
      if (f.meta_data !== undefined) checkMetaData(f.meta_data);
      return [
        {
          type: 'payment_method.created',
          data: {
            id: command.paymentMethodId,
            account_id: command.owner.accountId,
            is_test: command.owner.mode === 'test',
            created_at: command.now.toISOString(),
            customer: f.customer,
            gateway: f.gateway,
            type: f.type,
            card: f.card,
            wallet: f.wallet,
            fingerprint: f.fingerprint ?? null,
            source: f.source,
            status: 'active',
            meta_data: f.meta_data ?? {},
            token: command.token,
          },
        },
      ];
    }
    if (!ownedBy(state, command.owner)) throw notFound('payment method', command.paymentMethodId);
    const fields = state.fields!;
    if (fields.status === 'detached') {
      if (command.type === 'DeletePaymentMethod') return [];
      throw invalidState(`Cannot update payment method ${command.paymentMethodId}: its status is detached`);
    }
    switch (command.type) {
      case 'UpdatePaymentMethod': {
        const c = command.changes;
        if (c.meta_data !== undefined) checkMetaData(c.meta_data);
        if ((c.exp_month !== undefined || c.exp_year !== undefined) && !fields.card) {
          throw invalidParam(c.exp_month !== undefined ? 'exp_month' : 'exp_year', 'Only card payment methods have an expiry date');
        }
        if (c.exp_month !== undefined && (!Number.isInteger(c.exp_month) || c.exp_month < 1 || c.exp_month > 12)) throw invalidParam('exp_month', 'exp_month must be 1 to 12');
        if (c.exp_year !== undefined && (!Number.isInteger(c.exp_year) || c.exp_year < 2000 || c.exp_year > 2100)) throw invalidParam('exp_year', 'exp_year must be a four-digit year');
        const changes: PaymentMethodChanges = {};
        if (c.exp_month !== undefined) changes.exp_month = c.exp_month;
        if (c.exp_year !== undefined) changes.exp_year = c.exp_year;
        if (c.meta_data !== undefined) changes.meta_data = { ...c.meta_data };
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'payment_method.updated', data: { id: command.paymentMethodId, customer: fields.customer, changes } }];
      }
      case 'DeletePaymentMethod':
        return [{ type: 'payment_method.deleted', data: { id: command.paymentMethodId, customer: fields.customer, deleted_at: command.now.toISOString() } }];
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'payment_method.created': {
        const { id, account_id, is_test, created_at, token, ...fields } = event.data;
        return { exists: true, owner: { accountId: account_id, mode: is_test ? 'test' : 'live' }, fields, token };
      }
      case 'payment_method.updated':
        return { ...state, fields: applyPaymentMethodChanges(state.fields!, event.data.changes) };
      case 'payment_method.deleted':
        return { ...state, fields: { ...state.fields!, status: 'detached' } };
      default:
        return state;
    }
  },
};
