import { Decider, DomainEvent } from '#shared/decider.js';
import { DomainError, invalidParam, missingParam, notFound } from '#shared/errors.js';
import { type MetaData, checkMetaData, mergeMetaData } from '#shared/meta-data.js';
import { type Owner, ownedBy } from '#shared/owner.js';
import type { PriceSnapshot, ProductSnapshot } from '#collections/domain/pricing.js';
import { checkPriceMix } from './create-checkout-session.js';
import { CTA_TEXTS, type CtaText } from './checkout-session.types.js';

/**
 * A payment link: a reusable address (`{checkout_url}/pl/<id>`) whose visitors each get a checkout
 * session when they start paying. Recurring prices make subscriptions, only one-time prices single
 * collections. A use counts when the session is paid (`times_used`); from the moment the customer
 * starts paying until then the session holds a reservation (internal `payment_link_use.*` events),
 * released when the session ends unpaid. Both are decided in the link's stream with its expected
 * revision, and paid uses plus reservations never pass `usage_limit`: two payers racing for the
 * last use cannot both get it.
 */
export interface LinkItem {
  price: PriceSnapshot;
  product: ProductSnapshot;
  quantity: number;
}

/** Settings passed through to each session the link opens (checked like a session's when the link is made). */
export interface LinkSessionSettings {
  currency?: string;
  after_completion?: Record<string, unknown>;
  payment_methods?: Record<string, string[]> | null;
  discounts?: Array<{ code: string; duration_in_collections?: number }>;
  subscription_settings?: { duration?: number | null; commitment_periods?: number | null; trial_days?: number | null } | null;
  shipping_address_collection?: boolean;
  shipping_address_countries?: string[] | null;
  shipping_cost?: boolean;
  shipping_amount?: string | null;
  consent?: Record<string, unknown>;
  custom_fields?: Array<Record<string, unknown>>;
  invoicing?: Record<string, unknown> | null;
  description?: string | null;
  locale?: string;
}

export interface PaymentLinkFields {
  active: boolean;
  url: string;
  /** `subscription` when a price is recurring, else `payment` (single collections). */
  mode: 'subscription' | 'payment';
  items: LinkItem[];
  usage_limit: number | null;
  times_used: number;
  cta_text: CtaText;
  settings: LinkSessionSettings;
  meta_data: MetaData;
}

export type PaymentLinkCommand =
  | { type: 'CreatePaymentLink'; owner: Owner; linkId: string; url: string; items: LinkItem[]; usageLimit: number | null | undefined; ctaText: string | undefined; active: boolean | undefined; settings: LinkSessionSettings; metaData: MetaData | undefined; now: Date }
  | { type: 'UpdatePaymentLink'; owner: Owner; linkId: string; changes: { active?: boolean; usage_limit?: number | null; cta_text?: string; meta_data?: MetaData; settings?: LinkSessionSettings }; now: Date }
  /** The customer of a session opened from the link starts paying: a use is reserved for it (idempotent per session). */
  | { type: 'ReservePaymentLinkUse'; owner: Owner; linkId: string; sessionId: string; now: Date }
  /** The session is paid: its use counts (its reservation, if any, becomes the use). Never refused: the payment is a fact. */
  | { type: 'UsePaymentLink'; owner: Owner; linkId: string; sessionId: string; now: Date }
  /** The session ended unpaid (or its payment could not start): its reservation is given back; a paid use never is. */
  | { type: 'ReleasePaymentLinkUse'; owner: Owner; linkId: string; sessionId: string; now: Date };

export type PaymentLinkCreated = DomainEvent<'payment_link.created', PaymentLinkFields & { id: string; account_id: string; is_test: boolean; created_at: string }>;
export type PaymentLinkUpdated = DomainEvent<'payment_link.updated', { id: string; changes: Partial<PaymentLinkFields> }>;
export type PaymentLinkUsed = DomainEvent<'payment_link.used', { id: string; checkout_session: string; times_used: number; used_at: string }>;
/** Written before reservations existed (a use counted at completion, given back when completion failed); still folded. */
export type PaymentLinkUseReleased = DomainEvent<'payment_link.use_released', { id: string; checkout_session: string; times_used: number }>;
/** Internal (not in the public feed: their prefix is no resource's). */
export type PaymentLinkUseReserved = DomainEvent<'payment_link_use.reserved', { id: string; checkout_session: string; reserved_at: string }>;
export type PaymentLinkReservationReleased = DomainEvent<'payment_link_use.released', { id: string; checkout_session: string; released_at: string }>;
export type PaymentLinkEvent = PaymentLinkCreated | PaymentLinkUpdated | PaymentLinkUsed | PaymentLinkUseReleased | PaymentLinkUseReserved | PaymentLinkReservationReleased;

export interface PaymentLinkState {
  exists: boolean;
  owner: Owner | null;
  fields: PaymentLinkFields | null;
  /** Sessions whose use counted (paid). */
  uses: string[];
  /** Sessions being paid: each holds one use until it is paid or ends unpaid. */
  reserved: string[];
}

export const paymentLinkStream = (id: string) => `paymentlink-${id}`;

/** Why a link cannot be used now, or null: `used_up` when its paid uses and the uses held by sessions being paid (`reserved`) reach `usage_limit`. */
export function linkClosedReason(f: PaymentLinkFields, reserved = 0): 'inactive' | 'used_up' | null {
  if (!f.active) return 'inactive';
  if (f.usage_limit !== null && f.times_used + reserved >= f.usage_limit) return 'used_up';
  return null;
}

export const linkClosedError = (id: string, reason: 'inactive' | 'used_up') =>
  reason === 'inactive'
    ? new DomainError('payment_link_inactive', `Payment link ${id} is not active`, null, 409)
    : new DomainError('payment_link_used_up', `Payment link ${id} has reached its usage limit`, null, 409);

function checkUsageLimit(v: unknown) {
  if (v === undefined || v === null) return;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 1_000_000_000) throw invalidParam('usage_limit', 'usage_limit must be an integer from 1 to 1000000000');
}

function checkCta(v: unknown): CtaText | undefined {
  if (v === undefined) return undefined;
  if (!(CTA_TEXTS as readonly unknown[]).includes(v)) throw invalidParam('cta_text', `cta_text must be one of ${CTA_TEXTS.join(', ')}`);
  return v as CtaText;
}

/** The spec's payment-link rules over items and settings (the session rules are checked as well, by opening one in a dry run). */
export function checkLinkItems(items: LinkItem[], settings: LinkSessionSettings): 'subscription' | 'payment' {
  if (items.length === 0) throw missingParam('items', 'items must have at least one item');
  if (items.length > 20) throw invalidParam('items', 'items can have at most 20 items');
  items.forEach((it, i) => {
    if (!it.price.active) throw invalidParam(`items[${i}][price]`, `Price ${it.price.id} is not active`);
    if (!Number.isInteger(it.quantity) || it.quantity < 1 || it.quantity > 1_000_000) throw invalidParam(`items[${i}][quantity]`, `items[${i}][quantity] must be an integer from 1 to 1000000`);
  });
  const recurring = items.some((it) => it.price.type === 'recurring');
  if (!recurring && settings.subscription_settings !== undefined && settings.subscription_settings !== null) {
    throw invalidParam('subscription_settings', 'subscription_settings needs at least one recurring price in the link');
  }
  checkPriceMix(items.map((it, i) => ({ id: `line_${i}`, price: it.price, product: it.product, quantity: it.quantity, rate: null })), settings.subscription_settings?.trial_days);
  return recurring ? 'subscription' : 'payment';
}

export const paymentLinkDecider: Decider<PaymentLinkCommand, PaymentLinkState, PaymentLinkEvent> = {
  initialState: { exists: false, owner: null, fields: null, uses: [], reserved: [] },

  decide(command, state) {
    if (command.type === 'CreatePaymentLink') {
      if (state.exists) throw new DomainError('resource_already_exists', `Payment link ${command.linkId} already exists`, null, 409);
      const mode = checkLinkItems(command.items, command.settings);
      checkUsageLimit(command.usageLimit);
      const cta = checkCta(command.ctaText) ?? (mode === 'subscription' ? 'Suscribirse' : 'Pagar');
      if (command.active !== undefined && typeof command.active !== 'boolean') throw invalidParam('active', 'active must be a boolean');
      const meta = checkMetaData(command.metaData) ?? {};
      return [
        {
          type: 'payment_link.created',
          data: {
            id: command.linkId,
            account_id: command.owner.accountId,
            is_test: command.owner.mode === 'test',
            created_at: command.now.toISOString(),
            active: command.active ?? true,
            url: command.url,
            mode,
            items: command.items,
            usage_limit: command.usageLimit ?? null,
            times_used: 0,
            cta_text: cta,
            settings: command.settings,
            meta_data: meta,
          },
        },
      ];
    }
    if (!ownedBy(state, command.owner)) throw notFound('payment link', command.linkId);
    const f = state.fields!;
    const id = command.linkId;
    switch (command.type) {
      case 'UpdatePaymentLink': {
        const ch = command.changes;
        const changes: Partial<PaymentLinkFields> = {};
        if (ch.active !== undefined) {
          if (typeof ch.active !== 'boolean') throw invalidParam('active', 'active must be a boolean');
          if (ch.active !== f.active) changes.active = ch.active;
        }
        if (ch.usage_limit !== undefined) {
          checkUsageLimit(ch.usage_limit);
          const held = f.times_used + state.reserved.length;
          if (ch.usage_limit !== null && ch.usage_limit < held) throw invalidParam('usage_limit', `usage_limit cannot be below the ${held} uses already made or being paid`);
          changes.usage_limit = ch.usage_limit;
        }
        if (ch.cta_text !== undefined) changes.cta_text = checkCta(ch.cta_text)!;
        if (ch.meta_data !== undefined) changes.meta_data = mergeMetaData(f.meta_data, checkMetaData(ch.meta_data)!);
        if (ch.settings !== undefined) {
          if (f.mode === 'payment' && ch.settings.subscription_settings !== undefined && ch.settings.subscription_settings !== null) {
            throw invalidParam('subscription_settings', 'subscription_settings needs at least one recurring price in the link');
          }
          const settings = { ...f.settings, ...ch.settings };
          checkLinkItems(f.items, settings);
          changes.settings = settings;
        }
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'payment_link.updated', data: { id, changes } }];
      }
      case 'ReservePaymentLinkUse': {
        if (state.uses.includes(command.sessionId) || state.reserved.includes(command.sessionId)) return [];
        const reason = linkClosedReason(f, state.reserved.length);
        if (reason) throw linkClosedError(id, reason);
        return [{ type: 'payment_link_use.reserved', data: { id, checkout_session: command.sessionId, reserved_at: command.now.toISOString() } }];
      }
      case 'UsePaymentLink':
        if (state.uses.includes(command.sessionId)) return [];
        return [{ type: 'payment_link.used', data: { id, checkout_session: command.sessionId, times_used: f.times_used + 1, used_at: command.now.toISOString() } }];
      case 'ReleasePaymentLinkUse':
        if (!state.reserved.includes(command.sessionId)) return [];
        return [{ type: 'payment_link_use.released', data: { id, checkout_session: command.sessionId, released_at: command.now.toISOString() } }];
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'payment_link.created': {
        const { id, account_id, is_test, created_at, ...fields } = event.data;
        return { exists: true, owner: { accountId: account_id, mode: is_test ? 'test' : 'live' }, fields, uses: [], reserved: [] };
      }
      case 'payment_link_use.reserved':
        return { ...state, reserved: [...state.reserved, event.data.checkout_session] };
      case 'payment_link_use.released':
        return { ...state, reserved: state.reserved.filter((u) => u !== event.data.checkout_session) };
      case 'payment_link.used':
        return {
          ...state,
          fields: { ...state.fields!, times_used: event.data.times_used },
          uses: [...state.uses, event.data.checkout_session],
          reserved: state.reserved.filter((u) => u !== event.data.checkout_session),
        };
      case 'payment_link.use_released':
        return { ...state, fields: { ...state.fields!, times_used: event.data.times_used }, uses: state.uses.filter((u) => u !== event.data.checkout_session) };
      default:
        return { ...state, fields: applyPaymentLinkEvent(state.fields!, event) };
    }
  },
};

export function applyPaymentLinkEvent(f: PaymentLinkFields, event: PaymentLinkEvent): PaymentLinkFields {
  switch (event.type) {
    case 'payment_link.updated':
      return { ...f, ...event.data.changes };
    case 'payment_link.used':
    case 'payment_link.use_released':
      return { ...f, times_used: event.data.times_used };
    default:
      return f;
  }
}
