import { Decider, DomainEvent } from '#shared/decider.js';
import { invalidParam, invalidState, missingParam, notFound } from '#shared/errors.js';
import { type MetaData, checkMetaData, mergeMetaData } from '#shared/meta-data.js';
import { type Currency, currency as currencyOf, decimalPlaces, formatAmount, isDecimalString, parseDecimal } from '#shared/money.js';
import type { Owner } from '#shared/owner.js';

export const PRICE_TYPES = ['recurring', 'one_time'] as const;
export const BILLING_PERIODS = ['day', 'week', 'month', 'year'] as const;
export const PRICING_MODELS = ['standard', 'graduated', 'volume', 'ntp'] as const;
export const DEFAULT_CURRENCY = 'COP';

export type PriceType = (typeof PRICE_TYPES)[number];
export type BillingPeriod = (typeof BILLING_PERIODS)[number];
export type PricingModel = (typeof PRICING_MODELS)[number];

export interface PriceTier {
  /** Upper bound (inclusive) of the quantity this tier covers; null on the last tier (no bound). */
  up_to: number | null;
  unit_price: string;
  flat_price: string | null;
}

export interface PricingTiers {
  tiers: PriceTier[];
}

export interface NtpPricing {
  min_amount: string | null;
  max_amount: string | null;
  suggested_amount: string | null;
}

/** A price as stored: amounts are strings with exactly the currency's minor-unit digits. */
export interface PriceFields {
  product_id: string;
  type: PriceType;
  pricing_model: PricingModel;
  currency: string;
  unit_price: string | null;
  billing_period: BillingPeriod | null;
  billing_interval: number | null;
  pricing_tiers: PricingTiers | null;
  ntp_pricing: NtpPricing | null;
  active: boolean;
  meta_data: MetaData;
}

/** What a merchant sends to create a price (before defaults and normalisation). */
export interface PriceInput {
  product_id: string;
  currency?: string;
  type: PriceType;
  billing_period?: BillingPeriod;
  billing_interval?: number;
  pricing_model?: PricingModel;
  unit_price?: string;
  pricing_tiers?: { tiers: Array<{ up_to?: number | null; unit_price?: string; flat_price?: string }> };
  ntp_pricing?: { min_amount?: string; max_amount?: string; suggested_amount?: string };
  active?: boolean;
  meta_data?: MetaData;
}

/** Prices are immutable except for these. */
export interface PriceChanges {
  active?: boolean;
  meta_data?: MetaData;
}

/** What the price decider needs to know about the product a new price belongs to. */
export interface ProductRef {
  exists: boolean;
  deleted: boolean;
  owner: Owner | null;
}

export type PriceCommand =
  | { type: 'CreatePrice'; owner: Owner; priceId: string; product: ProductRef; fields: PriceInput; now: Date }
  | { type: 'UpdatePrice'; owner: Owner; priceId: string; changes: PriceChanges; now: Date }
  | { type: 'DeletePrice'; owner: Owner; priceId: string; now: Date };

export type PriceCreated = DomainEvent<
  'price.created',
  PriceFields & { id: string; account_id: string; is_test: boolean; created_at: string }
>;
export type PriceUpdated = DomainEvent<'price.updated', { id: string; changes: PriceChanges }>;
export type PriceDeleted = DomainEvent<'price.deleted', { id: string }>;
export type PriceEvent = PriceCreated | PriceUpdated | PriceDeleted;

export interface PriceState {
  exists: boolean;
  deleted: boolean;
  owner: Owner | null;
  fields: PriceFields | null;
}

export const priceStream = (priceId: string) => `price-${priceId}`;

const sameOwner = (a: Owner | null, b: Owner) => a !== null && a.accountId === b.accountId && a.mode === b.mode;

const isPositiveInteger = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 1;

/** A decimal string ≥ 0 with at most the currency's minor-unit digits, formatted to exactly those digits. */
function amount(value: unknown, param: string, cur: Currency): string {
  if (!isDecimalString(value) || parseDecimal(value).lt(0)) {
    throw invalidParam(param, `${param} must be a decimal string greater than or equal to 0 (e.g. "15000.00")`);
  }
  if (decimalPlaces(value) > cur.exponent) {
    throw invalidParam(param, `${param} can have at most ${cur.exponent} decimal places for currency ${cur.code}`);
  }
  return formatAmount(value, cur);
}

function tiersOf(input: PriceInput['pricing_tiers'], cur: Currency): PricingTiers {
  if (input === null || typeof input !== 'object' || !Array.isArray(input.tiers)) {
    throw invalidParam('pricing_tiers[tiers]', 'pricing_tiers[tiers] must be a list of tiers');
  }
  if (input.tiers.length === 0) throw invalidParam('pricing_tiers[tiers]', 'pricing_tiers[tiers] must have at least one tier');
  const last = input.tiers.length - 1;
  let previous = 0;
  return {
    tiers: input.tiers.map((tier, i) => {
      const p = `pricing_tiers[tiers][${i}]`;
      if (tier === null || typeof tier !== 'object') throw invalidParam(p, `${p} must be an object`);
      if (tier.up_to === undefined) throw missingParam(`${p}[up_to]`, `${p}[up_to] is required (an integer, or null on the last tier)`);
      if (i === last) {
        if (tier.up_to !== null) throw invalidParam(`${p}[up_to]`, `The last tier must have up_to null (it has no upper bound)`);
      } else {
        if (tier.up_to === null) throw invalidParam(`${p}[up_to]`, `Only the last tier can have up_to null`);
        if (!isPositiveInteger(tier.up_to)) throw invalidParam(`${p}[up_to]`, `${p}[up_to] must be an integer greater than or equal to 1`);
        if (tier.up_to <= previous) {
          throw invalidParam(`${p}[up_to]`, `${p}[up_to] must be greater than the up_to of the previous tier (${previous})`);
        }
        previous = tier.up_to;
      }
      if (tier.unit_price === undefined) throw missingParam(`${p}[unit_price]`);
      return {
        up_to: tier.up_to,
        unit_price: amount(tier.unit_price, `${p}[unit_price]`, cur),
        flat_price: tier.flat_price === undefined ? null : amount(tier.flat_price, `${p}[flat_price]`, cur),
      };
    }),
  };
}

function ntpOf(input: PriceInput['ntp_pricing'], cur: Currency): NtpPricing {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw invalidParam('ntp_pricing', 'ntp_pricing must be an object');
  }
  const opt = (key: keyof NtpPricing) => (input[key] === undefined ? null : amount(input[key], `ntp_pricing[${key}]`, cur));
  const ntp: NtpPricing = { min_amount: opt('min_amount'), max_amount: opt('max_amount'), suggested_amount: opt('suggested_amount') };
  const [min, max, suggested] = [ntp.min_amount, ntp.max_amount, ntp.suggested_amount].map((v) => (v === null ? null : parseDecimal(v)));
  if (min && max && min.gt(max)) throw invalidParam('ntp_pricing[min_amount]', 'ntp_pricing[min_amount] must not be greater than ntp_pricing[max_amount]');
  if (suggested && min && suggested.lt(min)) {
    throw invalidParam('ntp_pricing[suggested_amount]', 'ntp_pricing[suggested_amount] must not be less than ntp_pricing[min_amount]');
  }
  if (suggested && max && suggested.gt(max)) {
    throw invalidParam('ntp_pricing[suggested_amount]', 'ntp_pricing[suggested_amount] must not be greater than ntp_pricing[max_amount]');
  }
  return ntp;
}

/** Checks a create request against every rule and returns the price as it will be stored. */
export function priceFieldsOf(input: PriceInput): PriceFields {
  const code = input.currency ?? DEFAULT_CURRENCY;
  const cur = currencyOf(code);
  if (!cur) throw invalidParam('currency', `currency must be an ISO 4217 currency code such as COP, got '${code}'`);

  if (!PRICE_TYPES.includes(input.type)) {
    if (input.type === undefined) throw missingParam('type');
    throw invalidParam('type', `type must be one of: ${PRICE_TYPES.join(', ')}`);
  }
  let billing_period: BillingPeriod | null = null;
  let billing_interval: number | null = null;
  if (input.type === 'recurring') {
    if (input.billing_period === undefined) throw missingParam('billing_period', 'billing_period is required for recurring prices');
    if (!BILLING_PERIODS.includes(input.billing_period)) {
      throw invalidParam('billing_period', `billing_period must be one of: ${BILLING_PERIODS.join(', ')}`);
    }
    if (input.billing_interval === undefined) throw missingParam('billing_interval', 'billing_interval is required for recurring prices');
    if (!isPositiveInteger(input.billing_interval)) {
      throw invalidParam('billing_interval', 'billing_interval must be an integer greater than or equal to 1');
    }
    billing_period = input.billing_period;
    billing_interval = input.billing_interval;
  } else {
    if (input.billing_period !== undefined) throw invalidParam('billing_period', 'billing_period is only allowed for recurring prices');
    if (input.billing_interval !== undefined) throw invalidParam('billing_interval', 'billing_interval is only allowed for recurring prices');
  }

  const model = input.pricing_model ?? 'standard';
  if (!PRICING_MODELS.includes(model)) throw invalidParam('pricing_model', `pricing_model must be one of: ${PRICING_MODELS.join(', ')}`);
  const tiered = model === 'graduated' || model === 'volume';
  if (model !== 'standard' && input.unit_price !== undefined) {
    throw invalidParam('unit_price', `unit_price is only allowed with pricing_model standard (use ${tiered ? 'pricing_tiers' : 'ntp_pricing'})`);
  }
  if (!tiered && input.pricing_tiers !== undefined) {
    throw invalidParam('pricing_tiers', 'pricing_tiers is only allowed with pricing_model graduated or volume');
  }
  if (model !== 'ntp' && input.ntp_pricing !== undefined) {
    throw invalidParam('ntp_pricing', 'ntp_pricing is only allowed with pricing_model ntp');
  }
  let unit_price: string | null = null;
  let pricing_tiers: PricingTiers | null = null;
  let ntp_pricing: NtpPricing | null = null;
  if (model === 'standard') {
    if (input.unit_price === undefined) throw missingParam('unit_price', 'unit_price is required with pricing_model standard');
    unit_price = amount(input.unit_price, 'unit_price', cur);
  } else if (tiered) {
    if (input.pricing_tiers === undefined) throw missingParam('pricing_tiers', `pricing_tiers is required with pricing_model ${model}`);
    pricing_tiers = tiersOf(input.pricing_tiers, cur);
  } else {
    if (input.ntp_pricing === undefined) throw missingParam('ntp_pricing', 'ntp_pricing is required with pricing_model ntp');
    ntp_pricing = ntpOf(input.ntp_pricing, cur);
  }

  if (input.active !== undefined && typeof input.active !== 'boolean') throw invalidParam('active', 'active must be a boolean');
  const meta_data = checkMetaData(input.meta_data) ?? {};

  return {
    product_id: input.product_id,
    type: input.type,
    pricing_model: model,
    currency: cur.code,
    unit_price,
    billing_period,
    billing_interval,
    pricing_tiers,
    ntp_pricing,
    active: input.active ?? true,
    meta_data,
  };
}

/** Only what would actually change: an unchanged `active` and no-op meta_data keys are dropped. */
function effectiveChanges(fields: PriceFields, changes: PriceChanges): PriceChanges {
  const out: PriceChanges = {};
  if (changes.active !== undefined) {
    if (typeof changes.active !== 'boolean') throw invalidParam('active', 'active must be a boolean');
    if (changes.active !== fields.active) out.active = changes.active;
  }
  const meta = checkMetaData(changes.meta_data);
  if (meta) {
    const patch: MetaData = {};
    for (const [k, v] of Object.entries(meta)) {
      if (v === '' ? k in fields.meta_data : fields.meta_data[k] !== v) patch[k] = v;
    }
    if (Object.keys(patch).length > 0) out.meta_data = patch;
  }
  return out;
}

export function applyPriceChanges(fields: PriceFields, changes: PriceChanges): PriceFields {
  return {
    ...fields,
    active: changes.active ?? fields.active,
    meta_data: changes.meta_data ? mergeMetaData(fields.meta_data, changes.meta_data) : fields.meta_data,
  };
}

/**
 * Prices: created for a product of the same account and mode, immutable afterwards except for
 * `active` and `meta_data`, deleted (hidden; the product can then be deleted).
 */
export const priceDecider: Decider<PriceCommand, PriceState, PriceEvent> = {
  initialState: { exists: false, deleted: false, owner: null, fields: null },

  decide(command, state) {
    if (command.type === 'CreatePrice') {
      if (state.exists) throw invalidState(`Price ${command.priceId} already exists`);
      const fields = priceFieldsOf(command.fields);
      const { product } = command;
      if (!product.exists || product.deleted || !sameOwner(product.owner, command.owner)) {
        throw notFound('product', command.fields.product_id, 'product_id');
      }
      return [
        {
          type: 'price.created',
          data: {
            id: command.priceId,
            account_id: command.owner.accountId,
            is_test: command.owner.mode === 'test',
            created_at: command.now.toISOString(),
            ...fields,
          },
        },
      ];
    }
    if (!state.exists || state.deleted || !sameOwner(state.owner, command.owner)) throw notFound('price', command.priceId);
    switch (command.type) {
      case 'UpdatePrice': {
        const changes = effectiveChanges(state.fields!, command.changes);
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'price.updated', data: { id: command.priceId, changes } }];
      }
      case 'DeletePrice':
        return [{ type: 'price.deleted', data: { id: command.priceId } }];
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'price.created': {
        const { id, account_id, is_test, created_at, ...fields } = event.data;
        return { exists: true, deleted: false, owner: { accountId: account_id, mode: is_test ? 'test' : 'live' }, fields };
      }
      case 'price.updated':
        return { ...state, fields: applyPriceChanges(state.fields!, event.data.changes) };
      case 'price.deleted':
        return { ...state, deleted: true };
    }
  },
};
