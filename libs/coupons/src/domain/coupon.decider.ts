import { createHash } from 'node:crypto';
import { Decider, DomainEvent } from '#shared/decider.js';
import { DomainError, invalidParam, missingParam, notFound } from '#shared/errors.js';
import { type MetaData, checkMetaData, mergeMetaData } from '#shared/meta-data.js';
import { Money, currency as currencyOf, decimalPlaces, formatAmount, isDecimalString } from '#shared/money.js';
import { type Owner, ownedBy } from '#shared/owner.js';

/**
 * A coupon: a discount a merchant defines once and customers redeem by `code` (checkout sessions,
 * payment links, subscriptions). Exactly one of `amount` (in `currency`) or `percent` (0–100].
 * Redemptions are counted in the coupon's own stream, appended with its expected revision, so
 * `max_redemptions` holds exactly under any concurrency. A checkout session reserves its redemption
 * when the customer starts paying (internal `coupon_redemption.*` events), confirms it when paid
 * (`coupon.redeemed`) and gives it back when it ends unpaid; `times_redeemed` counts confirmed
 * redemptions, and confirmed plus reserved never pass `max_redemptions`.
 */
export interface CouponFields {
  code: string;
  name: string | null;
  amount: string | null;
  percent: string | null;
  /** Required with `amount`; with `percent` optional (null: any currency). */
  currency: string | null;
  /**
   * Collections the discount applies to when a customer types the code on a hosted page (null: all).
   * A request's `discounts: [{code, duration_in_collections}]` sets its own, and without one the
   * discount applies to every cycle (the spec's rule), whatever this says.
   */
  duration_in_collections: number | null;
  valid_from: string | null;
  valid_until: string | null;
  max_redemptions: number | null;
  times_redeemed: number;
  active: boolean;
  meta_data: MetaData;
}

export interface CouponInput {
  code: string;
  name?: string | null;
  amount?: string | null;
  percent?: string | null;
  currency?: string | null;
  duration_in_collections?: number | null;
  valid_from?: string | null;
  valid_until?: string | null;
  max_redemptions?: number | null;
  active?: boolean;
  meta_data?: MetaData;
}

export interface CouponChanges {
  name?: string | null;
  valid_until?: string | null;
  max_redemptions?: number | null;
  active?: boolean;
  meta_data?: MetaData;
}

export type CouponCommand =
  | { type: 'CreateCoupon'; owner: Owner; couponId: string; input: CouponInput; now: Date }
  | { type: 'UpdateCoupon'; owner: Owner; couponId: string; changes: CouponChanges; now: Date }
  | { type: 'DeleteCoupon'; owner: Owner; couponId: string; now: Date }
  /**
   * `redemption`: what redeems it (a `sub_`, `cs_`, `col_` id): a second redemption by the same one
   * decides nothing. A redemption reserved before is confirmed without any check (what reserved it
   * was paid, even if the coupon has since been deactivated, deleted or has expired).
   */
  | { type: 'RedeemCoupon'; owner: Owner; couponId: string; redemption: string; currency: string; now: Date }
  /** Holds a redemption for what is being paid (a `cs_`): checked like a redemption, counted against `max_redemptions`. */
  | { type: 'ReserveCouponRedemption'; owner: Owner; couponId: string; redemption: string; currency: string; now: Date }
  /** Gives back a reservation (what held it ended unpaid); a confirmed redemption is not touched. */
  | { type: 'ReleaseCouponReservation'; owner: Owner; couponId: string; redemption: string; now: Date }
  /** Gives a redemption back (what redeemed it failed to be written). */
  | { type: 'ReleaseCouponRedemption'; owner: Owner; couponId: string; redemption: string; now: Date };

export type CouponCreated = DomainEvent<'coupon.created', CouponFields & { id: string; account_id: string; is_test: boolean; created_at: string }>;
export type CouponUpdated = DomainEvent<'coupon.updated', { id: string; changes: Partial<CouponFields> }>;
export type CouponDeleted = DomainEvent<'coupon.deleted', { id: string; deleted_at: string }>;
export type CouponRedeemed = DomainEvent<'coupon.redeemed', { id: string; redemption: string; times_redeemed: number; redeemed_at: string }>;
export type CouponRedemptionReleased = DomainEvent<'coupon.redemption_released', { id: string; redemption: string; times_redeemed: number }>;
/** Internal (not in the public feed: their prefix is no resource's). */
export type CouponRedemptionReserved = DomainEvent<'coupon_redemption.reserved', { id: string; redemption: string; reserved_at: string }>;
export type CouponReservationReleased = DomainEvent<'coupon_redemption.released', { id: string; redemption: string; released_at: string }>;
export type CouponEvent = CouponCreated | CouponUpdated | CouponDeleted | CouponRedeemed | CouponRedemptionReleased | CouponRedemptionReserved | CouponReservationReleased;

export interface CouponState {
  exists: boolean;
  owner: Owner | null;
  deleted: boolean;
  fields: CouponFields | null;
  /** What redeemed it (confirmed). */
  redemptions: string[];
  /** What holds a reservation (being paid). */
  reserved: string[];
}

export const couponStream = (id: string) => `coupon-${id}`;

/** Codes compare case-insensitively and without surrounding spaces. */
export const couponCodeKey = (code: string) => code.trim().toUpperCase();

/** One stream per (account, mode, code): the claim that makes a code unique (not a public category). */
export const couponCodeStream = (owner: Owner, code: string) =>
  `couponcode-${createHash('sha256').update(`${owner.accountId}|${owner.mode}|${couponCodeKey(code)}`).digest('hex')}`;

const isInt = (v: unknown, min: number, max: number) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

function checkInt(param: string, v: unknown, min: number, max: number) {
  if (v === undefined || v === null) return;
  if (!isInt(v, min, max)) throw invalidParam(param, `${param} must be an integer from ${min} to ${max}`);
}

function checkDate(param: string, v: unknown): string | null {
  if (v === undefined || v === null) return null;
  const d = typeof v === 'string' ? new Date(v) : new Date(NaN);
  if (Number.isNaN(d.getTime())) throw invalidParam(param, `${param} must be an ISO 8601 timestamp`);
  return d.toISOString();
}

function checkName(v: unknown) {
  if (v !== undefined && v !== null && (typeof v !== 'string' || v.length > 200)) throw invalidParam('name', 'name must be a string of at most 200 characters');
}

/** Why a coupon cannot be redeemed now in `currency` (null: it can); reservations count against `max_redemptions`. `param` names the field for errors. */
export function redeemRefusal(state: CouponState, currency: string, now: Date, param = 'code'): DomainError | null {
  const f = state.fields!;
  if (state.deleted || !f.active) return new DomainError('coupon_invalid', `Coupon ${f.code} is no longer valid`, param, 400);
  if (f.valid_from && now.getTime() < Date.parse(f.valid_from)) return new DomainError('coupon_invalid', `Coupon ${f.code} is not valid until ${f.valid_from}`, param, 400);
  if (f.valid_until && now.getTime() > Date.parse(f.valid_until)) return new DomainError('coupon_expired', `Coupon ${f.code} expired at ${f.valid_until}`, param, 400);
  if (f.max_redemptions !== null && f.times_redeemed + state.reserved.length >= f.max_redemptions) return new DomainError('coupon_used_up', `Coupon ${f.code} has reached its maximum number of redemptions`, param, 400);
  if (f.currency && f.currency !== currency.toUpperCase()) return new DomainError('coupon_invalid', `Coupon ${f.code} is in ${f.currency} and cannot be applied to an amount in ${currency.toUpperCase()}`, param, 400);
  return null;
}

function decideCreate(c: Extract<CouponCommand, { type: 'CreateCoupon' }>, state: CouponState): CouponEvent[] {
  if (state.exists) throw new DomainError('resource_already_exists', `Coupon ${c.couponId} already exists`, null, 409);
  const i = c.input;
  if (typeof i.code !== 'string' || i.code.trim().length === 0) throw missingParam('code');
  if (!/^[A-Za-z0-9_-]{1,50}$/.test(i.code.trim())) throw invalidParam('code', 'code must be 1 to 50 letters, digits, - or _');
  checkName(i.name);
  const amount = i.amount ?? null;
  const percent = i.percent ?? null;
  if ((amount === null) === (percent === null)) throw invalidParam(amount === null ? 'amount' : 'percent', 'A coupon needs exactly one of amount or percent');
  let currency: string | null = null;
  if (i.currency !== undefined && i.currency !== null) {
    const cur = currencyOf(i.currency);
    if (!cur) throw invalidParam('currency', `currency must be an ISO 4217 currency code (got ${i.currency})`);
    currency = cur.code;
  }
  let amountOut: string | null = null;
  if (amount !== null) {
    if (!currency) throw missingParam('currency', 'currency is required with amount');
    const cur = currencyOf(currency)!;
    if (!isDecimalString(amount) || new Money(amount).lte(0)) throw invalidParam('amount', 'amount must be a positive decimal amount');
    if (decimalPlaces(amount) > cur.exponent) throw invalidParam('amount', `amount has more decimals than ${cur.code} allows (${cur.exponent})`);
    amountOut = formatAmount(amount, cur);
  }
  let percentOut: string | null = null;
  if (percent !== null) {
    if (!isDecimalString(percent) || new Money(percent).lte(0) || new Money(percent).gt(100)) throw invalidParam('percent', 'percent must be a decimal greater than 0 and at most 100');
    percentOut = new Money(percent).toFixed();
  }
  checkInt('duration_in_collections', i.duration_in_collections, 1, 1000);
  checkInt('max_redemptions', i.max_redemptions, 1, 100_000_000);
  const validFrom = checkDate('valid_from', i.valid_from);
  const validUntil = checkDate('valid_until', i.valid_until);
  if (validUntil && validUntil <= (validFrom ?? c.now.toISOString())) throw invalidParam('valid_until', 'valid_until must be after valid_from and in the future');
  if (i.active !== undefined && typeof i.active !== 'boolean') throw invalidParam('active', 'active must be a boolean');
  const meta = checkMetaData(i.meta_data) ?? {};
  return [
    {
      type: 'coupon.created',
      data: {
        id: c.couponId,
        account_id: c.owner.accountId,
        is_test: c.owner.mode === 'test',
        created_at: c.now.toISOString(),
        code: i.code.trim(),
        name: i.name ?? null,
        amount: amountOut,
        percent: percentOut,
        currency,
        duration_in_collections: i.duration_in_collections ?? null,
        valid_from: validFrom,
        valid_until: validUntil,
        max_redemptions: i.max_redemptions ?? null,
        times_redeemed: 0,
        active: i.active ?? true,
        meta_data: meta,
      },
    },
  ];
}

export const couponDecider: Decider<CouponCommand, CouponState, CouponEvent> = {
  initialState: { exists: false, owner: null, deleted: false, fields: null, redemptions: [], reserved: [] },

  decide(command, state) {
    if (command.type === 'CreateCoupon') return decideCreate(command, state);
    if (!ownedBy(state, command.owner)) throw notFound('coupon', command.couponId);
    // What was reserved before a deletion is still confirmed or given back.
    const settling = (command.type === 'RedeemCoupon' || command.type === 'ReleaseCouponReservation') && state.reserved.includes(command.redemption);
    if (state.deleted && !settling) throw notFound('coupon', command.couponId);
    const f = state.fields!;
    const id = command.couponId;
    switch (command.type) {
      case 'UpdateCoupon': {
        const ch = command.changes;
        const changes: Partial<CouponFields> = {};
        if (ch.name !== undefined) {
          checkName(ch.name);
          changes.name = ch.name;
        }
        if (ch.valid_until !== undefined) {
          const until = checkDate('valid_until', ch.valid_until);
          if (until && f.valid_from && until <= f.valid_from) throw invalidParam('valid_until', 'valid_until must be after valid_from');
          changes.valid_until = until;
        }
        if (ch.max_redemptions !== undefined) {
          checkInt('max_redemptions', ch.max_redemptions, 1, 100_000_000);
          const held = f.times_redeemed + state.reserved.length;
          if (ch.max_redemptions !== null && ch.max_redemptions < held) {
            throw invalidParam('max_redemptions', `max_redemptions cannot be below the ${held} redemptions already made or being paid`);
          }
          changes.max_redemptions = ch.max_redemptions;
        }
        if (ch.active !== undefined) {
          if (typeof ch.active !== 'boolean') throw invalidParam('active', 'active must be a boolean');
          changes.active = ch.active;
        }
        if (ch.meta_data !== undefined) changes.meta_data = mergeMetaData(f.meta_data, checkMetaData(ch.meta_data)!);
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'coupon.updated', data: { id, changes } }];
      }
      case 'DeleteCoupon':
        return [{ type: 'coupon.deleted', data: { id, deleted_at: command.now.toISOString() } }];
      case 'RedeemCoupon': {
        if (state.redemptions.includes(command.redemption)) return [];
        if (!state.reserved.includes(command.redemption)) {
          const refusal = redeemRefusal(state, command.currency, command.now);
          if (refusal) throw refusal;
        }
        return [{ type: 'coupon.redeemed', data: { id, redemption: command.redemption, times_redeemed: f.times_redeemed + 1, redeemed_at: command.now.toISOString() } }];
      }
      case 'ReserveCouponRedemption': {
        if (state.redemptions.includes(command.redemption) || state.reserved.includes(command.redemption)) return [];
        const refusal = redeemRefusal(state, command.currency, command.now);
        if (refusal) throw refusal;
        return [{ type: 'coupon_redemption.reserved', data: { id, redemption: command.redemption, reserved_at: command.now.toISOString() } }];
      }
      case 'ReleaseCouponReservation':
        if (!state.reserved.includes(command.redemption)) return [];
        return [{ type: 'coupon_redemption.released', data: { id, redemption: command.redemption, released_at: command.now.toISOString() } }];
      case 'ReleaseCouponRedemption':
        if (!state.redemptions.includes(command.redemption)) return [];
        return [{ type: 'coupon.redemption_released', data: { id, redemption: command.redemption, times_redeemed: f.times_redeemed - 1 } }];
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'coupon.created': {
        const { id, account_id, is_test, created_at, ...fields } = event.data;
        return { exists: true, owner: { accountId: account_id, mode: is_test ? 'test' : 'live' }, deleted: false, fields, redemptions: [], reserved: [] };
      }
      case 'coupon.updated':
        return { ...state, fields: { ...state.fields!, ...event.data.changes } };
      case 'coupon.deleted':
        return { ...state, deleted: true };
      case 'coupon.redeemed':
        return {
          ...state,
          fields: { ...state.fields!, times_redeemed: event.data.times_redeemed },
          redemptions: [...state.redemptions, event.data.redemption],
          reserved: state.reserved.filter((r) => r !== event.data.redemption),
        };
      case 'coupon_redemption.reserved':
        return { ...state, reserved: [...state.reserved, event.data.redemption] };
      case 'coupon_redemption.released':
        return { ...state, reserved: state.reserved.filter((r) => r !== event.data.redemption) };
      case 'coupon.redemption_released':
        return { ...state, fields: { ...state.fields!, times_redeemed: event.data.times_redeemed }, redemptions: state.redemptions.filter((r) => r !== event.data.redemption) };
      default:
        return state;
    }
  },
};

/** Fields after an event, for the projection. */
export function applyCouponEvent(fields: CouponFields, event: CouponEvent): CouponFields {
  switch (event.type) {
    case 'coupon.updated':
      return { ...fields, ...event.data.changes };
    case 'coupon.redeemed':
    case 'coupon.redemption_released':
      return { ...fields, times_redeemed: event.data.times_redeemed };
    default:
      return fields;
  }
}

/** The coupon-code claim: which coupon holds a code in an account and mode. */
export type CouponCodeEvent = DomainEvent<'coupon_code.claimed', { coupon_id: string }> | DomainEvent<'coupon_code.released', { coupon_id: string }>;
export type CouponCodeCommand = { type: 'ClaimCouponCode'; couponId: string; code: string } | { type: 'ReleaseCouponCode'; couponId: string };

export const couponCodeDecider: Decider<CouponCodeCommand, { holder: string | null }, CouponCodeEvent> = {
  initialState: { holder: null },
  decide(command, state) {
    if (command.type === 'ReleaseCouponCode') return state.holder === command.couponId ? [{ type: 'coupon_code.released', data: { coupon_id: command.couponId } }] : [];
    if (state.holder === command.couponId) return [];
    if (state.holder !== null) throw new DomainError('resource_already_exists', `A coupon with code ${command.code.trim()} already exists: ${state.holder}`, 'code', 409);
    return [{ type: 'coupon_code.claimed', data: { coupon_id: command.couponId } }];
  },
  evolve(state, event) {
    if (event.type === 'coupon_code.claimed') return { holder: event.data.coupon_id };
    if (event.type === 'coupon_code.released' && state.holder === event.data.coupon_id) return { holder: null };
    return state;
  },
};
