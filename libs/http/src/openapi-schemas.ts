/**
 * The resources the API returns, as OpenAPI 3.0 schemas: every field with its type, money as decimal
 * strings, enumerations from the domain's state tables, nullability. One place for every resource;
 * `RESPONSES` says which schema each /v1 operation answers with, and `describeResponses`
 * (openapi-responses.ts) puts both into the generated document, so generated clients are typed.
 *
 * Resource schemas list their fields and leave `additionalProperties` open (a client must accept
 * fields added later, Stripe's rule); test/http/openapi-schemas.http.spec.ts validates real answers
 * against them with undeclared fields refused, so a field the service returns is a field listed here.
 */
import { PUBLIC_EVENT_TYPES } from '#events/public-event-types.js';
import { REPORTS } from '#analytics/read-models/report-catalog.js';
import { MOVEMENT_TYPES } from '#analytics/read-models/revenue.read-model.js';

type Schema = Record<string, unknown>;

// ---- building blocks ----------------------------------------------------------------------------

const nullable = (s: Schema): Schema => ({ ...s, nullable: true });
const str = (description?: string): Schema => ({ type: 'string', ...(description ? { description } : {}) });
const nstr = (description?: string) => nullable(str(description));
const int = (description?: string): Schema => ({ type: 'integer', ...(description ? { description } : {}) });
const nint = (description?: string) => nullable(int(description));
const bool = (description?: string): Schema => ({ type: 'boolean', ...(description ? { description } : {}) });
/** A decimal amount as a string (`"49900.00"`): never a JSON number. */
const money = (description = 'Decimal amount, as a string in the currency\'s minor-unit precision'): Schema => ({ type: 'string', pattern: '^-?\\d+(\\.\\d+)?$', example: '49900.00', description });
const nmoney = (description?: string) => nullable(money(description));
/** A decimal that is not money (a percentage, a rate). */
const decimal = (description: string): Schema => ({ type: 'string', pattern: '^-?\\d+(\\.\\d+)?$', description });
const ndecimal = (description: string) => nullable(decimal(description));
const time = (description?: string): Schema => ({ type: 'string', format: 'date-time', example: '2026-11-23T10:00:00.000Z', ...(description ? { description } : {}) });
const ntime = (description?: string) => nullable(time(description));
/** A due date: a calendar day of the account's zone, due until its end. */
const DUE_DATE = "The last millisecond of the due day in the account's time zone (America/Bogota): due 2026-12-31 is `2027-01-01T04:59:59.999Z`; past due from then";
/** The spec's `created_date`: `YYYY-MM-DD HH:MM:SS` (UTC). */
const createdDate = (): Schema => ({ type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$', example: '2026-11-23 10:00:00', description: 'Creation time, `YYYY-MM-DD HH:MM:SS` (UTC)' });
const oneOf = (values: readonly string[], description?: string): Schema => ({ type: 'string', enum: [...values], ...(description ? { description } : {}) });
/** A nullable enumeration lists null among its values too (OpenAPI 3.0.3's clarification). */
const noneOf = (values: readonly string[], description?: string): Schema => ({ ...oneOf(values, description), enum: [...values, null], nullable: true });
const id = (prefix: string, description?: string): Schema => ({ type: 'string', pattern: `^${prefix}`, example: `${prefix}0lO5x1PYOc8fMNINw4RJAi3c`, ...(description ? { description } : {}) });
const nid = (prefix: string, description?: string) => nullable(id(prefix, description));
const currency = (): Schema => ({ type: 'string', pattern: '^[A-Z]{3}$', example: 'COP', description: 'ISO 4217 code' });
const ncurrency = () => nullable(currency());
const url = (description?: string): Schema => ({ type: 'string', format: 'uri', ...(description ? { description } : {}) });
const nurl = (description?: string) => nullable(url(description));
const arr = (items: Schema, description?: string): Schema => ({ type: 'array', items, ...(description ? { description } : {}) });
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
/** A SHA-256 digest in hex. */
const hex64 = (description?: string): Schema => ({ type: 'string', pattern: '^[0-9a-f]{64}$', ...(description ? { description } : {}) });
/** Free-form key/value data the merchant attached. */
const metaData = (): Schema => ({ type: 'object', additionalProperties: true, description: 'Your own key/value data (keys without `$`, `.` or control characters)' });
/** An object with the listed fields, all required (present, possibly null). */
const obj = (properties: Record<string, Schema>, extra: Schema = {}): Schema => ({ type: 'object', required: Object.keys(properties), properties, ...extra });
/** An embedded object whose fields are open (a copy of another resource, a provider's payload). */
const open = (description: string, properties: Record<string, Schema> = {}): Schema => ({ type: 'object', properties, additionalProperties: true, description });

/** A resource: `id`, `object` (one value), `is_test`, and its own fields. `optional` fields may be absent. */
function resource(object: string, prefix: string | null, fields: Record<string, Schema>, options: { optional?: string[]; description: string; noId?: boolean; noTest?: boolean } = { description: '' }): Schema {
  const properties: Record<string, Schema> = {
    ...(options.noId ? {} : { id: prefix ? id(prefix) : str() }),
    object: { type: 'string', enum: [object] },
    ...fields,
    ...(options.noTest ? {} : { is_test: bool('Created with a test key') }),
  };
  const optional = new Set(options.optional ?? []);
  return { type: 'object', description: options.description, required: Object.keys(properties).filter((k) => !optional.has(k)), properties };
}

// ---- enumerations (the domain's state tables) -----------------------------------------------------

export const ENUMS = {
  subscriptionStatus: ['incomplete', 'trialing', 'scheduled', 'active', 'past_due', 'unpaid', 'paused', 'pending_cancel', 'canceled', 'ended', 'expired'],
  collectionStatus: ['pending', 'processing', 'paid', 'past_due', 'uncollectible', 'voided', 'refunded'],
  collectionMethod: ['charge', 'collect'],
  attemptStatus: ['in_progress', 'succeeded', 'failed', 'pending'],
  billingPeriod: ['day', 'week', 'month', 'year'],
  priceType: ['recurring', 'one_time'],
  pricingModel: ['standard', 'graduated', 'volume', 'ntp'],
  productStatus: ['active', 'inactive'],
  checkoutMode: ['subscription', 'payment', 'setup'],
  checkoutStatus: ['open', 'complete', 'expired'],
  checkoutPaymentStatus: ['unpaid', 'processing', 'paid', 'no_payment_required'],
  invoiceStatus: ['open', 'partially_paid', 'paid', 'void'],
  issuanceStatus: ['pending', 'failed', 'issued', 'external'],
  creditNoteStatus: ['issued', 'void'],
  endpointStatus: ['enabled', 'disabled'],
  testClockStatus: ['ready', 'advancing'],
  documentType: ['CC', 'CE', 'NIT', 'PP', 'TI', 'DNI', 'RUT', 'OTHER', 'RC', 'TE', 'PEP', 'PPT', 'NITE', 'NUIP'],
  mode: ['test', 'live'],
} as const;

// ---- embedded shapes --------------------------------------------------------------------------------

const billingAddress = obj(
  { address_1: str(), address_2: nstr(), city: str(), state: str(), postcode: nstr(), country: { type: 'string', pattern: '^[A-Z]{2}$', example: 'CO' } },
  { description: 'Billing address' },
);
const invoiceSettings = obj(
  { invoice_document_id: nstr(), invoice_cost_center: nstr(), invoice_payment_method_credit: nstr(), invoice_vendor: nstr(), invoice_autoretention_tax_id: nstr() },
  { description: 'Invoicing references (the last three only when a checkout session set them)', required: ['invoice_document_id', 'invoice_cost_center'] },
);
/** An invoice's provider parameters: the collection's references and a checkout session's further ones (null when not given). */
const invoiceDocumentSettings = obj(
  { invoice_document_id: nstr(), invoice_cost_center: nstr(), invoice_payment_method_credit: nstr(), invoice_vendor: nstr(), invoice_autoretention_tax_id: nstr() },
  { description: 'The invoicing-provider parameters the invoice was issued with' },
);
const retentions = (withReteiva: boolean) =>
  obj(
    { ...(withReteiva ? { reteiva: ndecimal('ReteIVA rate, percent of the tax') } : {}), reteica: ndecimal('ReteICA rate, per thousand (‰) of the taxable base (Bogotá services: 9.66)'), retefte: ndecimal('Retención en la fuente rate, percent of the taxable base') },
    { description: 'Withholding taxes (retenciones) applied to collections' },
  );
const discountFields = { id: id('sd_'), code: str(), amount: nmoney('A fixed amount off (exactly one of amount and percent is set)'), percent: ndecimal('A percentage off') };
const discount = obj(discountFields, { description: 'A discount entry' });
const durationInCollections = nint('How many collections it applies to; null: every one');
const subscriptionDiscount = obj({ ...discountFields, duration_in_collections: durationInCollections }, { description: 'A discount entry of a subscription' });
const sessionDiscount = obj(
  { ...discountFields, duration_in_collections: durationInCollections, coupon: nid('coupon_', 'The coupon the code redeemed'), applied_by: oneOf(['merchant', 'customer']) },
  { description: 'A discount entry of a checkout session (given by the merchant or entered by the customer)' },
);
const exchangeRate = obj({ from: currency(), to: currency(), rate: decimal('1 `from` = `rate` `to`'), as_of: time(), source: str() }, { description: 'A conversion applied to a price in another currency' });
const lastPaymentError = nullable(obj({ code: str(), message: str(), decline_code: nstr(), charge: nid('ch_') }, { description: 'Why the latest attempt failed; null once paid' }));
const card = obj({ brand: str(), last4: { type: 'string', pattern: '^\\d{4}$' }, exp_month: int(), exp_year: int() }, { description: 'The card (never its number)' });
const paymentInformation = nullable(open('How automatic collection pays (never a card number)', { gateway: str(), type: str() }));
const shipping = nullable(obj({ name: str(), phone: nstr(), address: billingAddress }, { description: 'Where to ship' }));
const shippingItem = nullable(obj({ description: str(), amount: money() }, { description: 'A shipping line added to each collection' }));
/** A price or product as copied onto an item (the resource at the time). */
const priceCopy = ref('Price');
const productCopy = ref('Product');
/** The spec's Item on a collection or checkout session. */
const collectionItem: Schema = {
  type: 'object',
  description: 'A line: the price and product billed',
  required: ['id', 'name', 'unit_price', 'subtotal', 'total', 'quantity', 'product', 'price'],
  properties: { id: id('si_'), name: str(), unit_price: money(), subtotal: money(), total: money(), quantity: int(), product: productCopy, price: priceCopy, amount: nmoney('`ntp` prices: the amount the customer chose') },
};
const subscriptionLine = obj({ id: id('si_'), price: priceCopy, product: productCopy, quantity: int(), amount: nmoney('`ntp` prices: the chosen amount') }, { description: 'An item of the subscription' });
const linkItem = {
  type: 'object',
  required: ['price', 'product'],
  properties: { price: priceCopy, product: productCopy, quantity: int('Payment links: units sold (storefronts let the customer choose one price)'), amount: nmoney('`ntp` prices: a fixed amount'), adjustable_quantity: nullable(open('Quantity the customer may choose')) },
};
const issuance = obj({ status: oneOf(ENUMS.issuanceStatus), attempts: int(), last_error: nstr(), next_attempt_at: ntime() }, { description: 'Issuance through the invoicing provider' });
const fiscal = nullable(open('The fiscal document as issued (CUFE, PDF and XML links)', { provider: str(), cufe: str(), pdf_url: url(), xml_url: url(), issued_at: time() }));

// ---- resources ----------------------------------------------------------------------------------------

/** A key succession statement of the audit log (docs/audit.md §3). */
const AUDIT_KEY_SUCCESSION: Schema = obj(
  {
    previous_key_id: str('The retired key, which signed this statement'),
    key_id: str('Its successor'),
    public_key_raw: str('The successor\'s raw 32-byte key, base64url'),
    valid_from: time('From when the successor signs heads'),
    signature: str('base64 Ed25519 signature by the previous key over the RFC 8785 canonical JSON of type ("audit_key_succession"), previous_key_id, key_id, public_key_raw, valid_from'),
  },
  { description: 'A key succession statement: the previous key names its successor (docs/audit.md §3)' },
);

export const RESOURCE_SCHEMAS: Record<string, Schema> = {
  Product: resource(
    'product',
    'prod_',
    {
      name: str(),
      description: nstr(),
      status: oneOf(ENUMS.productStatus),
      product_merchant_id: nstr(),
      product_invoicing_id: nstr(),
      product_shopA_id: nstr('Identifier in external storefront platform A'),
      product_shopB_id: nstr('Identifier in external storefront platform B'),
      image: nurl(),
      invoice_settings: obj({ invoice_tax_id: nstr(), invoice_tax_percentage: ndecimal('Tax percentage') }),
      meta_data: metaData(),
      created_date: createdDate(),
    },
    { description: 'A product of the catalog' },
  ),
  Price: resource(
    'price',
    'price_',
    {
      product_id: id('prod_'),
      type: oneOf(ENUMS.priceType),
      pricing_model: oneOf(ENUMS.pricingModel),
      currency: currency(),
      unit_price: nmoney('Per unit (null for graduated, volume and ntp prices)'),
      billing_period: noneOf(ENUMS.billingPeriod, 'Recurring prices only'),
      billing_interval: nint('Periods per cycle (3 with month = quarterly); recurring prices only'),
      pricing_tiers: nullable(
        obj({ tiers: arr(obj({ up_to: nint('Last unit of the tier; null = no limit'), unit_price: nmoney(), flat_price: nmoney() })) }, { description: 'graduated / volume prices' }),
      ),
      ntp_pricing: nullable(open('ntp prices: the amounts the customer may choose', { minimum: nmoney(), maximum: nmoney(), preset: nmoney() })),
      active: bool(),
      meta_data: metaData(),
      created_date: createdDate(),
    },
    { description: 'A price of a product: amount, currency and (recurring) billing period' },
  ),
  Customer: resource(
    'customer',
    'cus_',
    {
      email: str('Unique per account and mode'),
      name: nstr('null when none was given'),
      phone: nstr(),
      document_type: noneOf(ENUMS.documentType),
      document_number: nstr(),
      billing_address: nullable(billingAddress),
      default_payment_method: nid('pm_'),
      meta_data: metaData(),
      test_clock: nid('clock_'),
      created_date: createdDate(),
      erased_at: time('Only on an erased customer: when its personal data was erased (its fields then show placeholders, docs/personal-data.md)'),
    },
    { description: 'A customer (unique per email within the account and mode)', optional: ['erased_at'] },
  ),
  Subscription: resource(
    'subscription',
    'sub_',
    {
      customer: id('cus_'),
      status: oneOf(ENUMS.subscriptionStatus),
      items: arr(subscriptionLine),
      currency: currency(),
      billing_period: oneOf(ENUMS.billingPeriod),
      billing_interval: int(),
      collection_method: oneOf(ENUMS.collectionMethod),
      payment_method: nid('pm_'),
      payment_information: paymentInformation,
      days_until_due: nint("collect: each collection is due until the end of the day this many days after the day it is made, in the account's time zone (America/Bogota)"),
      first_payment_invoicing: oneOf(['create', 'after'], 'create: the fiscal invoice of the first collection is issued when the collection is made, before payment (collect only); after: once it is paid'),
      renewal_invoicing: bool(),
      schedule_date: ntime(),
      trial_days: nint(),
      trial_end: ntime(),
      duration: nint('Cycles until the subscription ends'),
      commitment_periods: nint(),
      usage_based: bool(),
      discounts: arr(subscriptionDiscount),
      switch_to_charge: bool(),
      invoice_settings: invoiceSettings,
      invoice_retentions: retentions(true),
      meta_data: metaData(),
      latest_collection: nid('col_'),
      next_renewal_date: ntime(),
      current_period_start: ntime(),
      current_period_end: ntime(),
      billing_cycle_anchor: ntime(),
      collections_count: int(),
      first_payment_expires_at: ntime('charge: when an unpaid first collection expires the subscription'),
      activated_at: ntime(),
      cancel_at: ntime(),
      canceled_at: ntime(),
      paused_at: ntime(),
      resumes_at: ntime(),
      ended_at: ntime(),
      expired_at: ntime(),
      shipping,
      shipping_item: shippingItem,
      migrated: bool(),
      test_clock: nid('clock_'),
      cycle: int('The current billing cycle, from 1'),
      usage_reported_for: ntime('Usage-based: the period end whose usage was reported'),
      usage_collect_at: ntime(),
      created_date: createdDate(),
    },
    { description: 'A subscription: what is sold, how often, to whom; it generates one collection per cycle' },
  ),
  SubscriptionItem: resource(
    'subscription_item',
    'si_',
    { subscription: id('sub_'), price: priceCopy, product: productCopy, quantity: int(), amount: nmoney('`ntp` prices: the chosen amount'), created_date: createdDate() },
    { description: 'An item of a subscription' },
  ),
  Collection: resource(
    'collection',
    'col_',
    {
      items: nullable(arr(collectionItem)),
      discounts: arr(discount),
      description: nstr(),
      subtotal: money(),
      total: money(),
      status: oneOf(ENUMS.collectionStatus),
      currency: currency(),
      paid_date: ntime(),
      voided_at_date: ntime(),
      due_date: ntime(`${DUE_DATE} (null for charge: due on its attempt)`),
      next_collection_attempt_date: ntime(),
      collection_method: oneOf(ENUMS.collectionMethod),
      collection_rule_id: nstr(),
      type: oneOf(['invoice']),
      meta_data: metaData(),
      payment_settings: nullable(open('Payment settings')),
      invoice_settings: invoiceSettings,
      invoice_retentions: retentions(false),
      collection_attempts: int(),
      collecting: bool(),
      payment_method_gateway: nstr(),
      payment_method_type: nstr(),
      paid_out_of_band: bool(),
      out_of_band_proof: nurl(),
      customer: id('cus_'),
      billing_address: nullable(billingAddress),
      subscription: nid('sub_'),
      invoice: nid('inv_'),
      invoice_number: nstr(),
      checkout_url: url('The hosted collection page'),
      invoices: arr(id('inv_'), 'Its fiscal invoices; on a registered payment\'s receipt, the invoices it paid into (in the order applied)'),
      additional_data: nullable(open('Redirect or instructions for the customer while `processing` (asynchronous methods)')),
      payment_method: nid('pm_'),
      latest_transaction: nid('tx_'),
      amount_refunded: money(),
      exchange_rates: arr(exchangeRate),
      discount_amounts: { type: 'object', additionalProperties: money(), description: 'Amount taken by each discount entry, by its id' },
      billing_reason: str('Why it was created: subscription_create, subscription_cycle, subscription_trial, manual, checkout, invoices_payment, invoice_upload, partial_payment_balance, …'),
      partial_payment: nullable(open('A deprecated partial payment: what was paid and the balance collection')),
      balance_of: nid('col_', 'The collection whose unpaid balance this one collects'),
      amount_applied: money('register_invoices_payment: on a receipt, the sum it applied to other collections (Σ applied_to; its total may be more); on a collection a registered payment went to, what was applied to it'),
      paid_by: nid('col_', 'The registered payment that paid this collection'),
      applied_to: nullable(arr(obj({ collection: id('col_'), amount: money() }))),
      amount_credited: money('What credit notes of its fiscal invoice took off its total'),
      credit_notes: arr(obj({ credit_note: id('cn_'), amount: money(), voided: { type: 'boolean' } }), 'The credit notes applied to it'),
      settled_by_credit_note: nid('cn_', 'The credit note that took what it asked to 0 (settled without money)'),
      amount_due: money('What it still asks: its total while pending, past_due, uncollectible or processing; 0 otherwise'),
      invoicing: nullable(oneOf(['create', 'after', 'none'], 'When its fiscal invoice is issued (standalone collections); none: switched off (a checkout session with invoicing.enabled false)')),
      test_clock: nid('clock_'),
      retry_schedule: obj({ retry_days: arr(int()), final_days: int() }, { description: 'The dunning policy this collection follows' }),
      dunning_step: int(),
      last_payment_error: lastPaymentError,
      created_date: createdDate(),
    },
    { description: 'A collection (cobro): what is paid, and to which money is attributed', optional: ['last_payment_error', 'invoicing'] },
  ),
  Transaction: resource(
    'transaction',
    'tx_',
    {
      collection: id('col_'),
      customer: id('cus_'),
      subscription: nid('sub_'),
      status: oneOf(ENUMS.attemptStatus),
      amount: money(),
      currency: currency(),
      payment_method: nid('pm_'),
      gateway: str(),
      payment_method_type: str(),
      initiated_by: str('automatic or customer'),
      charges: arr(id('ch_')),
      failure_code: nstr(),
      failure_message: nstr(),
      created_date: createdDate(),
    },
    { description: 'One payment attempt against a collection' },
  ),
  Charge: resource(
    'charge',
    'ch_',
    {
      collection: id('col_'),
      transaction: id('tx_'),
      customer: id('cus_'),
      subscription: nid('sub_'),
      status: oneOf(ENUMS.attemptStatus),
      try: int('Attempt number within the transaction'),
      amount: money(),
      currency: currency(),
      payment_method: nid('pm_'),
      gateway: str(),
      payment_method_type: str(),
      gateway_reference: nstr(),
      failure_code: nstr(),
      failure_message: nstr(),
      decline_code: nstr(),
      additional_data: nullable(open('Redirect or instructions from the gateway')),
      paid_at: ntime(),
      amount_refunded: money(),
      refunded: bool(),
      created_date: createdDate(),
    },
    { description: 'An attempt at payment-gateway level' },
  ),
  PaymentMethod: resource(
    'payment_method',
    'pm_',
    {
      customer: id('cus_'),
      gateway: str(),
      type: str('card, wallet_a, wallet_b, …'),
      card: nullable(card),
      wallet: nullable(open('The wallet', { account_last4: str() })),
      fingerprint: nstr(),
      source: oneOf(['payment', 'migration'], 'Saved from a payment, or migrated'),
      status: oneOf(['active', 'deleted']),
      meta_data: metaData(),
      created_date: createdDate(),
    },
    { description: 'A tokenized payment method of a customer' },
  ),
  TestClock: resource(
    'test_clock',
    'clock_',
    { name: nstr(), frozen_time: time(), status: oneOf(ENUMS.testClockStatus), created_date: createdDate() },
    { description: 'A test clock: objects attached to it live at its frozen time' },
  ),
  Event: resource(
    'event',
    'evt_',
    {
      type: oneOf(PUBLIC_EVENT_TYPES, 'The event type: every type the feed and the webhooks send'),
      created: time(),
      data: { type: 'object', required: ['object'], properties: { object: open('The object as it was after the event', { id: str(), object: str() }), previous_attributes: open('Fields that changed, with their values before') } },
      request: obj({ id: nstr(), idempotency_key: nstr() }),
    },
    { description: 'An event of the feed' },
  ),
  Coupon: resource(
    'coupon',
    'coupon_',
    {
      code: str(),
      name: nstr(),
      amount: nmoney('Fixed amount off (with currency); exactly one of amount and percent'),
      percent: ndecimal('Percentage off'),
      currency: ncurrency(),
      duration_in_collections: nint(),
      valid_from: ntime(),
      valid_until: ntime(),
      max_redemptions: nint(),
      times_redeemed: int(),
      active: bool(),
      meta_data: metaData(),
      created_date: createdDate(),
    },
    { description: 'A discount code' },
  ),
  CheckoutSession: resource(
    'checkout_session',
    'cs_',
    {
      mode: oneOf(ENUMS.checkoutMode),
      currency: currency(),
      customer: nid('cus_'),
      after_completion: obj({ type: str('hosted, redirect'), redirect_url_approved: nurl(), redirect_url_processing: nurl() }),
      items: arr(collectionItem),
      subtotal: money(),
      total: money(),
      meta_data: metaData(),
      status: oneOf(ENUMS.checkoutStatus),
      internal_reference_id: nstr(),
      payment_status: oneOf(ENUMS.checkoutPaymentStatus),
      expires_at: time(),
      created_date: time(),
      updated_date: time(),
      discounts: arr(sessionDiscount),
      subscription_settings: nullable(obj({ duration: nint(), commitment_periods: nint(), trial_days: nint() })),
      shipping_address_collection: bool(),
      shipping_address_countries: nullable(arr(str())),
      shipping_cost: bool(),
      shipping_amount: nmoney(),
      shipping_address: nullable(open('The address the customer gave')),
      cta_text: str(),
      payment_methods: nullable({ type: 'object', additionalProperties: arr(str()), description: 'Gateway → method names offered' }),
      url: url('The hosted checkout page'),
      subscription: nid('sub_'),
      collection: nid('col_'),
      payment_method: nid('pm_'),
      invoicing: nullable(open('Invoicing of the resulting collection', { enabled: bool() })),
      setup_subscription_id: nid('sub_'),
      description: nstr(),
      consent: obj({ acceptance_required: bool(), terms_of_service: bool(), privacy_policy: bool(), ip_address: nstr(), user_agent: nstr(), accepted_at: ntime() }),
      custom_fields: arr(open('A field the customer fills in', { key: str(), type: str(), label: str(), options: arr(str()), required: bool() })),
      locale: str(),
      payment_link: nid('pl_'),
      storefront: nid('sf_'),
      completed_at: ntime(),
      expired_at: ntime(),
      last_payment: nullable(open('The latest payment attempt on the page')),
      test_clock: nid('clock_'),
    },
    { description: 'A hosted checkout session' },
  ),
  PaymentLink: resource(
    'payment_link',
    'pl_',
    {
      active: bool(),
      url: url(),
      mode: oneOf(ENUMS.checkoutMode),
      items: arr(linkItem),
      usage_limit: nint(),
      times_used: int(),
      cta_text: str(),
      meta_data: metaData(),
      created_date: createdDate(),
    },
    { description: 'A reusable link to a hosted checkout' },
  ),
  Storefront: resource(
    'storefront',
    'sf_',
    { name: str(), active: bool(), url: url(), items: arr(linkItem), cta_text: nstr(), meta_data: metaData(), created_date: createdDate() },
    { description: 'A hosted page offering several prices of one frequency' },
  ),
  PortalSession: resource(
    'portal_session',
    'ps_',
    { customer: id('cus_'), return_url: nurl(), url: url('Where the customer signs in (once)'), created: time(), expires_at: time() },
    { description: 'A customer portal sign-in link' },
  ),
  WebhookEndpoint: resource(
    'webhook_endpoint',
    'we_',
    {
      url: url(),
      enabled_events: arr(str('An event type, `prefix.*` or `*`')),
      description: nstr(),
      status: oneOf(ENUMS.endpointStatus),
      meta_data: metaData(),
      created_date: createdDate(),
      secret: str('The signing secret (`whsec_…`): only when created or rotated'),
    },
    { description: 'Where events are delivered, signed', optional: ['secret'] },
  ),
  WebhookDeliveryAttempt: resource(
    'webhook_delivery_attempt',
    'wha_',
    {
      webhook_endpoint: id('we_'),
      event: id('evt_'),
      event_type: str(),
      attempt: int(),
      created: time(),
      status: oneOf(['succeeded', 'failed']),
      status_code: nint(),
      error: nstr(),
      duration_ms: int(),
      response_body: nstr(),
      next_attempt_at: ntime(),
      replay: id('whr_', 'The replay that sent it (absent for live deliveries and re-sends)'),
    },
    { description: 'One delivery attempt of an event to an endpoint', noTest: true, optional: ['replay'] },
  ),
  WebhookReplay: resource(
    'webhook_replay',
    'whr_',
    {
      endpoint: id('we_'),
      from: str('Where it starts: an event id (the events after it) or an ISO 8601 time (events created at or after it)'),
      to: nstr('Where it stops (included): an event id or an ISO 8601 time; null: the last event when it was started'),
      types: arr(str('An event type, `prefix.*` or `*`')),
      status: oneOf(['running', 'completed', 'canceled']),
      delivered: int('Events sent so far'),
      cursor: nid('evt_', 'The last event of the feed it has gone past'),
      created: time(),
      created_date: createdDate(),
      completed_at: ntime(),
      canceled_at: ntime(),
    },
    { description: "A re-delivery of the account's events to one endpoint, at a bounded rate, beside its live deliveries" },
  ),
  CustomerErasure: resource(
    'customer_erasure',
    'cus_',
    {
      erased_at: time('When the erasure was recorded (`customer.erased`)'),
      subscriptions_canceled: arr(id('sub_'), 'Subscriptions the erasure canceled now'),
      payment_methods_removed: arr(id('pm_'), 'Payment methods the erasure removed: the customer can no longer be charged'),
      fiscal_retention: obj(
        {
          kept: bool('True when the buyer identification of issued fiscal invoices is kept apart (tax law)'),
          invoices: arr(id('inv_')),
          kept_until: ntime('End of the legal retention of the last issued invoice'),
          basis: nstr('The legal basis of what is kept'),
        },
        { description: 'What tax law makes the merchant keep (docs/personal-data.md)' },
      ),
    },
    { description: "A customer's erasure (docs/personal-data.md): its personal data shows placeholders from now on", noTest: true },
  ),
  WebhookResend: resource(
    'webhook_resend',
    null,
    { webhook_endpoint: id('we_'), events: arr(id('evt_')) },
    { description: 'The events queued again for an endpoint', noId: true, noTest: true },
  ),
  Invoice: resource(
    'invoice',
    'inv_',
    {
      source: oneOf(['collection', 'upload'], 'Issued for a collection, or uploaded'),
      customer: id('cus_'),
      subscription: nid('sub_'),
      collection: nid('col_'),
      currency: currency(),
      number: nstr(),
      status: oneOf(ENUMS.invoiceStatus, 'open: nothing paid (credit notes may have lowered what is due); partially_paid: some money paid, some due; paid: nothing due (paid and/or credited); void'),
      overdue: bool(),
      lines: arr(open('A line of the invoice', { description: str(), quantity: int(), unit_price: money(), total: money() })),
      subtotal: money(),
      tax_total: money(),
      total: money(),
      retention_rates: { type: 'object', additionalProperties: decimal('Rate'), description: 'Withholding rates applied, by kind' },
      retentions: arr(open('A withholding applied', { type: str(), rate: decimal('Rate: per thousand (‰) for reteica, percent for reteiva and retefte'), amount: money() })),
      retention_total: money(),
      invoice_settings: invoiceDocumentSettings,
      amount_due: money('total − total_paid − amount_credited, never below 0; 0 once void'),
      total_paid: money('Money paid against it (credit notes are not payments)'),
      amount_credited: money('What its credit notes took off'),
      payments: arr(ref('InvoicePaymentEntry')),
      credit_notes: arr(id('cn_')),
      issue_date: ntime(),
      due_date: ntime(DUE_DATE),
      paid_at: ntime(),
      voided_at: ntime(),
      issuance,
      fiscal,
      meta_data: metaData(),
      test_clock: nid('clock_'),
      created_date: createdDate(),
    },
    { description: 'A fiscal invoice' },
  ),
  InvoicePaymentEntry: obj(
    { id: str(), amount: money(), date: time(), collection: id('col_'), payment_method_type: str(), receipt: nid('col_') },
    { description: 'A payment applied to an invoice' },
  ),
  InvoicePayment: {
    type: 'object',
    description: 'A payment applied to an invoice (GET /v1/invoices/{id}/payments)',
    required: ['object', 'invoice', 'id', 'amount', 'date', 'collection'],
    properties: { object: { type: 'string', enum: ['invoice_payment'] }, invoice: id('inv_'), id: str(), amount: money(), date: time(), collection: id('col_'), payment_method_type: str(), receipt: nid('col_') },
  },
  CreditNote: resource(
    'credit_note',
    'cn_',
    {
      invoice: id('inv_'),
      customer: id('cus_'),
      number: nstr(),
      amount: money(),
      currency: currency(),
      reason: str(),
      status: oneOf(ENUMS.creditNoteStatus),
      issuance,
      fiscal,
      voided_at: ntime(),
      refund: nullable(open('The refund made with the credit note')),
      created_date: createdDate(),
    },
    { description: 'A credit note against an invoice' },
  ),
  InvoicingSettings: resource(
    'invoicing_settings',
    null,
    {
      mode: oneOf(ENUMS.mode),
      enabled: bool(),
      provider: str(),
      numbering: obj({ prefix: str(), next_number: int(), range_end: nint(), credit_note_prefix: str(), credit_note_next_number: int() }),
      default_retentions: { type: 'object', additionalProperties: decimal('Rate: per thousand (‰) for reteica, percent for reteiva and retefte'), description: 'Default withholding rates by kind (reteiva, reteica, retefte)' },
    },
    { description: 'The account\'s invoicing settings for a mode', noId: true, noTest: true },
  ),
  InvoicingProviderBehaviour: resource(
    'invoicing_provider_behaviour',
    null,
    { fail_next: int(), delay_ms: int() },
    { description: 'How the simulated invoicing provider behaves (tests)', noId: true, noTest: true },
  ),
  Gateway: resource(
    'gateway',
    null,
    { connector: str('simulator, offline, …'), methods: arr(str()), mode: oneOf(ENUMS.mode) },
    { description: 'A payment gateway configured on the account', noTest: true },
  ),
  RetryPolicy: resource(
    'retry_policy',
    null,
    { retry_days: arr(int(), 'Days after the due date of each retry'), final_days: int('Days after the due date when a collection becomes uncollectible') },
    { description: 'The account\'s dunning policy', noId: true, noTest: true },
  ),
  CountryParameters: resource(
    'country_parameters',
    null,
    {
      country: str(),
      source: str(),
      document_types: arr(obj({ code: str(), dian_code: str(), name: str() })),
      departments: arr(obj({ dane_code: str(), name: str() })),
      municipalities: arr(obj({ dane_code: str(), name: str(), department: str(), kind: { type: 'string', enum: ['municipality', 'capital_district', 'non_municipal_area'], description: "DANE's class" } })),
      municipalities_complete: bool(),
      taxes: arr(obj({ dian_code: str(), code: str(), name: str() })),
      retention_concepts: arr(obj({ code: str(), retention: str(), name: str(), rate: decimal('Default rate, in unit'), unit: oneOf(['percent', 'per_mille'], 'per_mille (‰) for reteica, percent for reteiva and retefte'), base: str() })),
    },
    { description: 'Fiscal and geographic parameters of a country', noId: true, noTest: true },
  ),
  RevenueMovement: resource(
    'revenue_movement',
    'evt_',
    {
      type: oneOf(MOVEMENT_TYPES),
      amount: money('Signed change of MRR (negative for contraction and churn)'),
      currency: currency(),
      mrr_before: money('MRR of the subscription before'),
      mrr_after: money('MRR of the subscription after'),
      subscription: id('sub_'),
      customer: id('cus_'),
      event: id('evt_', 'The event that caused it (GET /v1/events/{id})'),
      event_type: str(),
      occurred_at: time(),
    },
    { description: 'One movement of MRR and the event that caused it (its id is the event id and the currency)', noTest: true },
  ),
  MailMessage: resource(
    'mail_message',
    'msg_',
    { to: str(), subject: str(), text: str(), html: nstr(), kind: str('collection.sent, collection.reminder, …'), refs: { type: 'object', additionalProperties: str() }, created_date: time() },
    { description: 'An e-mail kept in the embedded outbox (tests)' },
  ),
  // The audit log (docs/audit.md): hex strings are SHA-256 digests (64 hex digits).
  AuditPublicKey: resource(
    'audit_public_key',
    null,
    {
      key_id: str('The current key: first 16 hex digits of the SHA-256 of the raw key'),
      algorithm: oneOf(['Ed25519']),
      public_key_pem: str('SPKI PEM'),
      public_key_raw: str('The raw 32-byte key, base64url (RFC 8037 `x`)'),
      keys: arr(
        obj({
          object: oneOf(['audit_key']),
          key_id: str(),
          algorithm: oneOf(['Ed25519']),
          public_key_pem: str('SPKI PEM'),
          public_key_raw: str('base64url of the raw 32 bytes'),
          status: oneOf(['current', 'retired']),
          valid_from: time('From when it signs heads'),
          valid_to: nullable(time('When it was retired (null while current)')),
          succession: nullable(AUDIT_KEY_SUCCESSION),
        }),
        'Every key that signed or signs heads, the first first (retired ones stay published)',
      ),
    },
    { description: 'The Ed25519 public key that signs the audit log\'s heads, and every earlier one', noId: true, noTest: true },
  ),
  AuditKeySuccession: AUDIT_KEY_SUCCESSION,
  AuditSignedHead: resource(
    'audit_signed_head',
    null,
    {
      account: id('acct_'),
      size: int('Entries in the account\'s chain'),
      chain_hash: hex64('chain_hash of the last entry (64 zeros when empty)'),
      merkle_root: hex64('RFC 6962 Merkle tree hash over the entries\' event_hash'),
      signed_at: time(),
      key_id: str(),
      algorithm: oneOf(['Ed25519']),
      signature: str('base64 Ed25519 signature over the RFC 8785 canonical JSON of account, size, chain_hash, merkle_root, signed_at, key_id'),
    },
    { description: 'A signed checkpoint of an account\'s audit log', noId: true, noTest: true },
  ),
  AuditInclusionProof: resource(
    'audit_inclusion_proof',
    null,
    {
      entry: obj({ account: str(), seq: int(), event: id('evt_'), position: str(), event_hash: hex64(), prev: hex64(), chain_hash: hex64() }, { description: 'The event\'s entry in the chain' }),
      leaf_index: int('The entry\'s seq: its leaf in the tree'),
      tree_size: int(),
      audit_path: arr(hex64(), 'RFC 6962 audit path, leaf to root'),
      signed_head: ref('AuditSignedHead'),
    },
    { description: 'That an event is in the account\'s audit log (RFC 6962 inclusion proof)', noId: true, noTest: true },
  ),
  AuditConsistencyProof: resource(
    'audit_consistency_proof',
    null,
    {
      account: id('acct_'),
      from_size: int(),
      to_size: int(),
      from_root: hex64(),
      to_root: hex64(),
      proof: arr(hex64(), 'RFC 6962 consistency proof'),
      signed_heads: arr(ref('AuditSignedHead'), 'The heads the service signed at from_size and at to_size, where it did'),
    },
    { description: 'That the log of from_size entries is a prefix of the log of to_size (RFC 6962 consistency proof)', noId: true, noTest: true },
  ),
  // One line of GET /v1/audit/export (docs/audit.md §6): the header, an event, the signed head, or an error that cut the export short.
  AuditExportLine: {
    type: 'object',
    description: 'One line of an audit export (JSON Lines): `kind` says which; the fields of the other kinds are absent',
    required: ['kind'],
    properties: {
      kind: oneOf(['header', 'event', 'signed_head', 'error']),
      format: oneOf(['audit-export'], 'header'),
      version: int('header: the format version (1)'),
      account: id('acct_', 'header'),
      scope: obj({ type: oneOf(['account', 'customer', 'subscription']), id: str() }, { description: 'header' }),
      range: obj({ from: nstr('ISO time or evt_ id'), to: nstr('ISO time or evt_ id') }, { description: 'header' }),
      tie: oneOf(['chain', 'merkle'], 'header: `chain`, the whole chain linked to the signed head; `merkle`, each event with its inclusion proof'),
      tree_size: int('header: the signed head\'s size'),
      merkle_root: hex64('header: the signed head\'s merkle_root (each proof is checked against it as it is read; the head at the end confirms it)'),
      exported_at: time('header'),
      key_id: str('header: the signing key\'s id'),
      algorithm: oneOf(['Ed25519'], 'header'),
      event: open('event: exactly as hashed (RFC 8785): id, type, stream, revision, time, data, metadata'),
      chain: obj({ seq: int(), event_hash: hex64(), prev: hex64(), chain_hash: hex64() }, { description: 'event: its chain entry' }),
      proof: obj({ leaf_index: int(), tree_size: int(), audit_path: arr(hex64()) }, { description: 'event, in a subset: RFC 6962 inclusion proof against the signed head' }),
      signed_head: ref('AuditSignedHead'),
      events: int('signed_head, error: events in the export'),
      key_successions: arr(ref('AuditKeySuccession'), 'signed_head: every key succession statement, oldest first, leading from an earlier key to the head\'s'),
      message: str('error: why the export stopped'),
    },
  },
};

// ---- revenue analytics (docs/revenue-analytics.md) ------------------------------------------------

const day = (description: string): Schema => ({ type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', example: '2026-11-01', description });
const rate = (description: string): Schema => nullable({ type: 'string', pattern: '^-?\\d+\\.\\d{4}$', example: '0.0250', description: `${description}; null when the denominator is 0` });
const PERIOD_FIELDS: Record<string, Schema> = {
  start: day('First day of the period'),
  end: day('Last day of the period (inclusive)'),
  mrr_start: money('MRR at the start of the period'),
  mrr: money('MRR at the end of the period (or at as_of)'),
  new: money('MRR of subscriptions that counted for the first time'),
  expansion: money('MRR added by upgrades, quantity increases, discounts ending and resumptions'),
  contraction: money('MRR lost to downgrades, discounts and pauses'),
  churn: money('MRR lost to cancellations, endings, expirations and unpaid subscriptions'),
  reactivation: money('MRR of churned subscriptions that came back'),
  net_new: money('new + expansion + reactivation − contraction − churn'),
  active_subscriptions: int('Subscriptions counted in MRR at the end of the period'),
  paying_customers: int('Customers with at least one subscription counted in MRR at the end of the period'),
  new_subscriptions: int('Subscriptions that counted for the first time'),
  churned_subscriptions: int('Subscriptions that churned'),
  reactivated_subscriptions: int('Churned subscriptions that came back'),
  subscriber_churn_rate: rate('churned_subscriptions ÷ active subscriptions at the start'),
  revenue_churn_rate: rate('(churn + contraction) ÷ mrr_start'),
  net_revenue_churn_rate: rate('(churn + contraction − expansion − reactivation) ÷ mrr_start'),
  arpu: nmoney('mrr ÷ paying_customers; null without paying customers'),
  collected: money('Payments received'),
  refunded: money('Refunds given'),
  net_revenue: money('collected − refunded'),
  at_risk: money('Amount of collections past due at the end of the period'),
  recovered: money('Paid after a failed attempt or after falling past due'),
};
const reportPeriod = obj(PERIOD_FIELDS, { description: 'One period of a revenue report' });
const renewalsDue = obj({ count: int('Renewals due'), amount: money('What they would collect') }, { description: 'Renewals due in a window' });
const rangeFields = {
  currency: currency(),
  from: day('First day of the range'),
  to: day('Last day of the range (inclusive; the day that holds as_of at most)'),
  interval: oneOf(['day', 'week', 'month']),
  as_of: time('The moment reported: the figures as the events recorded up to then made them'),
};
const pickPeriod = (fields: readonly string[]) => obj(Object.fromEntries(['start', 'end', ...fields].map((f) => [f, PERIOD_FIELDS[f]])));

/** The analytics' answers (not resources: no lists of them but the movements'). */
export const REPORT_SCHEMAS: Record<string, Schema> = {
  RevenueReport: resource(
    'revenue_report',
    null,
    { ...rangeFields, periods: arr(reportPeriod), totals: reportPeriod, renewals: obj({ next_7_days: renewalsDue, next_30_days: renewalsDue }) },
    { description: 'Every figure of the revenue analytics per period and over the range', noId: true, noTest: true },
  ),
  RenewalsReport: resource('renewals_report', null, { currency: currency(), as_of: time(), next_7_days: renewalsDue, next_30_days: renewalsDue }, { description: 'Renewals due from as_of', noId: true, noTest: true }),
  ...Object.fromEntries(
    Object.entries(REPORTS).map(([name, r]) => [
      `${name.split('_').map((w) => w[0].toUpperCase() + w.slice(1)).join('')}Report`,
      resource('report', null, { report: oneOf([name]), ...rangeFields, periods: arr(pickPeriod(r.fields)), totals: pickPeriod(r.fields) }, { description: r.summary, noId: true, noTest: true }),
    ]),
  ),
};

/** Schemas answered by the operations, beyond the resources: lists of each and the deletion. */
const LISTS = Object.keys(RESOURCE_SCHEMAS).filter((n) => n !== 'InvoicePaymentEntry' && !n.startsWith('Audit'));

/** Which schema each /v1 operation answers with (`List` suffix: a list of them). Keyed `METHOD path`. */
export const RESPONSES: Record<string, string> = {
  'GET /v1/account/gateways': 'GatewayList',
  'POST /v1/account/gateways': 'Gateway',
  'GET /v1/account/retry_policy': 'RetryPolicy',
  'POST /v1/account/retry_policy': 'RetryPolicy',
  'POST /v1/payment_methods/{id}/delete': 'Deleted',
  'POST /v1/customers/{id}/register_invoices_payment': 'Collection',
  'POST /v1/customers/{id}/erase': 'CustomerErasure',
  'GET /v1/subscriptions/{id}/history': 'EventList',
  'POST /v1/test_helpers/test_clocks': 'TestClock',
  'GET /v1/test_helpers/test_clocks': 'TestClockList',
  'GET /v1/test_helpers/test_clocks/{id}': 'TestClock',
  'POST /v1/test_helpers/test_clocks/{id}/advance': 'TestClock',
  'DELETE /v1/test_helpers/test_clocks/{id}': 'Deleted',
  'POST /v1/portal_sessions': 'PortalSession',
  'POST /v1/coupons': 'Coupon',
  'GET /v1/coupons': 'CouponList',
  'GET /v1/coupons/{id}': 'Coupon',
  'POST /v1/coupons/{id}/update': 'Coupon',
  'POST /v1/checkout_session': 'CheckoutSession',
  'GET /v1/checkout_session': 'CheckoutSessionList',
  'GET /v1/checkout_session/{id}': 'CheckoutSession',
  'POST /v1/checkout_session/{id}/expire': 'CheckoutSession',
  'POST /v1/payment_links': 'PaymentLink',
  'GET /v1/payment_links': 'PaymentLinkList',
  'GET /v1/payment_links/{id}': 'PaymentLink',
  'POST /v1/payment_links/{id}/update': 'PaymentLink',
  'POST /v1/storefronts': 'Storefront',
  'GET /v1/storefronts': 'StorefrontList',
  'GET /v1/storefronts/{id}': 'Storefront',
  'POST /v1/storefronts/{id}/update': 'Storefront',
  'GET /v1/test_helpers/outbox': 'MailMessageList',
  'POST /v1/webhook_endpoints': 'WebhookEndpoint',
  'GET /v1/webhook_endpoints': 'WebhookEndpointList',
  'GET /v1/webhook_endpoints/{id}': 'WebhookEndpoint',
  'POST /v1/webhook_endpoints/{id}': 'WebhookEndpoint',
  'POST /v1/webhook_endpoints/{id}/rotate_secret': 'WebhookEndpoint',
  'GET /v1/webhook_endpoints/{id}/deliveries': 'WebhookDeliveryAttemptList',
  'POST /v1/webhook_endpoints/{id}/resend': 'WebhookResend',
  'POST /v1/webhook_endpoints/{id}/replays': 'WebhookReplay',
  'GET /v1/webhook_endpoints/{id}/replays': 'WebhookReplayList',
  'GET /v1/webhook_endpoints/{id}/replays/{replay}': 'WebhookReplay',
  'POST /v1/webhook_endpoints/{id}/replays/{replay}/cancel': 'WebhookReplay',
  'POST /v1/test_helpers/webhook_endpoints/{id}/send_test_event': 'Event',
  'GET /v1/invoices': 'InvoiceList',
  'POST /v1/invoices': 'Invoice',
  'POST /v1/invoices/{id}/pay': 'Invoice',
  'GET /v1/invoices/{id}': 'Invoice',
  'POST /v1/invoices/{id}/void': 'Invoice',
  'GET /v1/invoices/{id}/payments': 'InvoicePaymentList',
  'POST /v1/invoices/{id}/credit_notes': 'CreditNote',
  'GET /v1/invoices/{id}/credit_notes': 'CreditNoteList',
  'GET /v1/credit_notes/{id}': 'CreditNote',
  'POST /v1/credit_notes/{id}/void': 'CreditNote',
  'GET /v1/account/invoicing_settings': 'InvoicingSettings',
  'POST /v1/account/invoicing_settings': 'InvoicingSettings',
  'POST /v1/test_helpers/invoicing_provider': 'InvoicingProviderBehaviour',
  'GET /v1/country_parameters/{country}': 'CountryParameters',
  'GET /v1/reports/summary': 'RevenueReport',
  'GET /v1/reports/renewals': 'RenewalsReport',
  'GET /v1/reports/mrr_movements': 'RevenueMovementList',
  'GET /v1/audit/public_key': 'AuditPublicKey',
  'GET /v1/audit/head': 'AuditSignedHead',
  'GET /v1/audit/proof': 'AuditInclusionProof',
  'GET /v1/audit/consistency': 'AuditConsistencyProof',
  'GET /v1/audit/export': 'AuditExportLine',
  ...Object.fromEntries(Object.keys(REPORTS).map((name) => [`GET /v1/reports/${name}`, `${name.split('_').map((w) => w[0].toUpperCase() + w.slice(1)).join('')}Report`])),
};

/** The operations that answer JSON Lines (`application/x-ndjson`): their RESPONSES schema is one line's. */
export const NDJSON_RESPONSES: ReadonlySet<string> = new Set(['GET /v1/audit/export']);

/** Every schema to put into `components.schemas`: the resources and a list schema for each. */
export function allSchemas(): Record<string, Schema> {
  const out: Record<string, Schema> = { ...RESOURCE_SCHEMAS, ...REPORT_SCHEMAS };
  for (const name of LISTS) {
    out[`${name}List`] = {
      type: 'object',
      description: `A page of ${name} objects, oldest or newest first as the operation says; pass the last id as starting_after for the next page`,
      required: ['object', 'url', 'has_more', 'data'],
      properties: { object: { type: 'string', enum: ['list'] }, url: { type: 'string' }, has_more: { type: 'boolean' }, data: { type: 'array', items: ref(name) } },
    };
  }
  return out;
}
