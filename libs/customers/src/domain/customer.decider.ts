import { Decider, DomainEvent } from '#shared/decider.js';
import { ownedBy } from '#shared/owner.js';
import { DomainError, invalidParam, invalidState, missingParam, notFound } from '#shared/errors.js';
import { type MetaData, checkMetaData, mergeMetaData } from '#shared/meta-data.js';
import type { Owner } from '#shared/owner.js';
import { checkColombianCustomer } from '#country-parameters/domain/co-parameters.js';
import { erasedCustomerFields } from '../personal-data/placeholders.js';

/** Identification document types: Colombia's (DIAN's table, see libs/country-parameters) plus DNI, RUT for other countries. */
export const DOCUMENT_TYPES = ['CC', 'CE', 'NIT', 'PP', 'TI', 'DNI', 'RUT', 'OTHER', 'RC', 'TE', 'PEP', 'PPT', 'NITE', 'NUIP'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** ISO 3166-1 alpha-2 country codes. */
export const COUNTRY_CODES: ReadonlySet<string> = new Set(
  (
    'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
    'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO ' +
    'FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE ' +
    'JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO ' +
    'MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW ' +
    'PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM ' +
    'TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
  ).split(' '),
);

/** The spec's billing address: every field a string; `address_2` and `postcode` may be null. */
export interface BillingAddress {
  address_1: string;
  address_2: string | null;
  city: string;
  state: string;
  postcode: string | null;
  /** ISO 3166-1 alpha-2, upper-case (`CO`). */
  country: string;
}

/** What a caller sends for a billing address: the nullable fields may be left out. */
export type BillingAddressInput = Omit<BillingAddress, 'address_2' | 'postcode'> & {
  address_2?: string | null;
  postcode?: string | null;
};

/** Every field of a customer. */
export interface CustomerFields {
  /** As given, trimmed; unique per account and mode compared case-insensitively (see customer-email.decider.ts). */
  email: string;
  name: string | null;
  phone: string | null;
  document_type: DocumentType | null;
  document_number: string | null;
  billing_address: BillingAddress | null;
  /** Always null until payment methods exist. */
  default_payment_method: string | null;
  meta_data: MetaData;
  /** The test clock the customer (and its subscriptions and collections) lives by: set at creation only, test mode only; null: real time. */
  test_clock: string | null;
}

/** What a merchant may set: `billing_address` is replaced as a whole, `meta_data` merges. */
export type CustomerChanges = Partial<Omit<CustomerFields, 'default_payment_method' | 'billing_address' | 'test_clock'>> & {
  billing_address?: BillingAddressInput | null;
};

/** What a create may set: the changes, the email, and the test clock (checked by the handler: an existing clock of the caller's, test mode). */
export type CustomerCreateFields = CustomerChanges & { email: string; test_clock?: string | null };

export type CustomerCommand =
  | { type: 'CreateCustomer'; owner: Owner; customerId: string; fields: CustomerCreateFields; now: Date }
  | { type: 'UpdateCustomer'; owner: Owner; customerId: string; changes: CustomerChanges; now: Date }
  /** `onlyIfUnset`: set it only when the customer has none (a first saved method becomes the default). */
  | { type: 'SetDefaultPaymentMethod'; owner: Owner; customerId: string; paymentMethodId: string | null; onlyIfUnset?: boolean; expectCurrent?: string; now: Date }
  /** Records the erasure (docs/personal-data.md): the customer's data key is destroyed before, by the handler. */
  | { type: 'EraseCustomer'; owner: Owner; customerId: string; now: Date; subjects?: string[] };

export type CustomerCreated = DomainEvent<
  'customer.created',
  CustomerFields & { id: string; account_id: string; is_test: boolean; created_at: string }
>;
export type CustomerUpdated = DomainEvent<'customer.updated', { id: string; changes: CustomerChanges & { default_payment_method?: string | null } }>;
/** The customer's personal data is forgotten (its key destroyed): a public event, with no personal data. */
export type CustomerErased = DomainEvent<'customer.erased', { id: string; erased_at: string; subjects?: string[] }>;
export type CustomerEvent = CustomerCreated | CustomerUpdated | CustomerErased;

export interface CustomerState {
  exists: boolean;
  owner: Owner | null;
  fields: CustomerFields | null;
  /** When the customer was erased (absent: it was not). */
  erasedAt?: string;
}

/** 409 `customer_erased`: an erased customer's personal data cannot be recorded again, nor can it be charged, subscribed or mailed. */
export const customerErased = (customerId: string, param: string | null = 'customer') =>
  new DomainError('customer_erased', `Customer ${customerId} was erased: it can no longer be subscribed, charged or mailed, nor its personal data recorded`, param, 409);

/** Refuses (409 `customer_erased`) what needs a customer that was not erased. */
export function refuseErased(state: CustomerState, customerId: string, param: string | null = 'customer'): void {
  if (state.erasedAt) throw customerErased(customerId, param);
}

export const customerStream = (customerId: string) => `customer-${customerId}`;

/** The uniqueness key of an email: trimmed, lower-case. */
export const emailKey = (email: string) => email.trim().toLowerCase();

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function checkText(param: string, value: string | null | undefined, max: number, nullable = true): void {
  if (value === undefined) return;
  if (value === null) {
    if (!nullable) throw invalidParam(param, `${param} must not be null`);
    return;
  }
  if (typeof value !== 'string') throw invalidParam(param, `${param} must be a string`);
  const trimmed = value.trim();
  if (trimmed.length === 0) throw invalidParam(param, `${param} must not be empty`);
  if (trimmed.length > max) throw invalidParam(param, `${param} must be at most ${max} characters long`);
}

function checkAddress(a: BillingAddressInput | null | undefined): void {
  if (a === undefined || a === null) return;
  if (typeof a !== 'object' || Array.isArray(a)) throw invalidParam('billing_address', 'billing_address must be an object');
  checkText('billing_address[address_1]', a.address_1, 200, false);
  checkText('billing_address[address_2]', a.address_2, 200);
  checkText('billing_address[city]', a.city, 100, false);
  checkText('billing_address[state]', a.state, 100, false);
  checkText('billing_address[postcode]', a.postcode, 20);
  checkText('billing_address[country]', a.country, 2, false);
  if (!COUNTRY_CODES.has(a.country.trim().toUpperCase())) {
    throw invalidParam('billing_address[country]', 'billing_address[country] must be an ISO 3166-1 alpha-2 country code such as CO');
  }
}

function checkChanges(c: CustomerChanges): void {
  if (c.email !== undefined) {
    if (c.email === null || typeof c.email !== 'string') throw invalidParam('email', 'email must be a string');
    const email = c.email.trim();
    if (email.length > 254 || !EMAIL.test(email)) throw invalidParam('email', 'email must be an email address');
  }
  checkText('name', c.name, 256);
  checkText('phone', c.phone, 40);
  if (c.document_type !== undefined && c.document_type !== null && !DOCUMENT_TYPES.includes(c.document_type)) {
    throw invalidParam('document_type', `document_type must be one of ${DOCUMENT_TYPES.join(', ')}`);
  }
  checkText('document_number', c.document_number, 50);
  checkAddress(c.billing_address);
  if (c.meta_data !== undefined) checkMetaData(c.meta_data);
}

const trimOrNull = (v: string | null | undefined) => (v === undefined || v === null ? null : v.trim());

function normalizeAddress(a: BillingAddressInput): BillingAddress {
  return {
    address_1: a.address_1.trim(),
    address_2: trimOrNull(a.address_2),
    city: a.city.trim(),
    state: a.state.trim(),
    postcode: trimOrNull(a.postcode),
    country: a.country.trim().toUpperCase(),
  };
}

/** The changes as recorded: strings trimmed, the country upper-case, left-out fields absent. */
export function normalizeCustomerChanges(c: CustomerChanges): CustomerChanges {
  const out: CustomerChanges = {};
  if (c.email !== undefined) out.email = c.email.trim();
  if (c.name !== undefined) out.name = trimOrNull(c.name);
  if (c.phone !== undefined) out.phone = trimOrNull(c.phone);
  if (c.document_type !== undefined) out.document_type = c.document_type;
  if (c.document_number !== undefined) out.document_number = trimOrNull(c.document_number);
  if (c.billing_address !== undefined) out.billing_address = c.billing_address === null ? null : normalizeAddress(c.billing_address);
  if (c.meta_data !== undefined) out.meta_data = { ...c.meta_data };
  return out;
}

export function applyCustomerChanges<F extends CustomerFields>(fields: F, changes: CustomerChanges & { default_payment_method?: string | null }): F {
  const { meta_data, billing_address, ...rest } = changes;
  return {
    ...fields,
    ...rest,
    billing_address: billing_address === undefined ? fields.billing_address : billing_address === null ? null : normalizeAddress(billing_address),
    meta_data: meta_data ? mergeMetaData(fields.meta_data, meta_data) : fields.meta_data,
  };
}

/**
 * Customers: created and updated. Email uniqueness spans streams, so it is not decided here but by
 * the email claim (customer-email.decider.ts) the handlers take before writing.
 */
export const customerDecider: Decider<CustomerCommand, CustomerState, CustomerEvent> = {
  initialState: { exists: false, owner: null, fields: null },

  decide(command, state) {
    if (command.type === 'CreateCustomer') {
      if (state.exists) throw invalidState(`Customer ${command.customerId} already exists`);
      if (command.fields.email === undefined || command.fields.email === null) throw missingParam('email');
      checkChanges(command.fields);
      const testClock = command.fields.test_clock ?? null;
      if (testClock !== null && (typeof testClock !== 'string' || testClock.length === 0)) throw invalidParam('test_clock', 'test_clock must be a test clock id');
      if (testClock !== null && command.owner.mode !== 'test') throw invalidParam('test_clock', 'Test clocks are only available with a test key');
      const fields = applyCustomerChanges(
        {
          email: '',
          name: null,
          phone: null,
          document_type: null,
          document_number: null,
          billing_address: null,
          default_payment_method: null,
          meta_data: {},
          test_clock: testClock,
        },
        normalizeCustomerChanges(command.fields),
      );
      checkColombianCustomer(fields.document_type, fields.billing_address);
      return [
        {
          type: 'customer.created',
          data: {
            id: command.customerId,
            account_id: command.owner.accountId,
            is_test: command.owner.mode === 'test',
            created_at: command.now.toISOString(),
            ...fields,
          },
        },
      ];
    }
    if (!ownedBy(state, command.owner)) throw notFound('customer', command.customerId);
    switch (command.type) {
      case 'EraseCustomer':
        if (state.erasedAt) return [];
        // `subjects`: the other keys destroyed with it (its hosted checkouts' sessions), for other processes to forget.
        return [{ type: 'customer.erased', data: { id: command.customerId, erased_at: command.now.toISOString(), ...(command.subjects?.length ? { subjects: command.subjects } : {}) } }];
      case 'UpdateCustomer': {
        refuseErased(state, command.customerId, null);
        checkChanges(command.changes);
        const changes = normalizeCustomerChanges(command.changes);
        if (Object.keys(changes).length === 0) return [];
        if (changes.document_type !== undefined || changes.billing_address !== undefined) {
          const after = applyCustomerChanges(state.fields!, changes);
          checkColombianCustomer(after.document_type, after.billing_address);
        }
        return [{ type: 'customer.updated', data: { id: command.customerId, changes } }];
      }
      case 'SetDefaultPaymentMethod': {
        const current = state.fields!.default_payment_method;
        if (command.onlyIfUnset && current !== null) return [];
        // Clearing on a method's deletion only clears that method.
        if (command.expectCurrent !== undefined && current !== command.expectCurrent) return [];
        if (current === command.paymentMethodId) return [];
        if (command.paymentMethodId !== null) refuseErased(state, command.customerId, 'payment_method');
        return [{ type: 'customer.updated', data: { id: command.customerId, changes: { default_payment_method: command.paymentMethodId } } }];
      }
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'customer.created': {
        const { id, account_id, is_test, created_at, ...fields } = event.data;
        // Customers created before test clocks have no `test_clock`: real time.
        return { exists: true, owner: { accountId: account_id, mode: is_test ? 'test' : 'live' }, fields: { ...fields, test_clock: fields.test_clock ?? null } };
      }
      case 'customer.updated':
        return { ...state, fields: applyCustomerChanges(state.fields!, event.data.changes) };
      case 'customer.erased':
        // The fields as a replay now reads them (placeholders): a state remembered in memory forgets too.
        return { ...state, fields: state.fields && { ...state.fields, ...erasedCustomerFields(state.fields) }, erasedAt: event.data.erased_at };
      default:
        return state;
    }
  },
};
