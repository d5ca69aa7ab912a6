import type { CommandContext } from '#platform/command-context.js';
import { CreateProductCommand } from '#catalog/application/create-product.js';
import { CreatePriceCommand } from '#catalog/application/create-price.js';
import { CreateCustomerCommand } from '#customers/application/create-customer.js';
import { CreateSubscriptionCommand } from '#subscriptions/application/create-subscription.js';
import { CreateCollectionCommand } from '#collections/application/create-collection.js';
import { CreateTestClockCommand } from '#test-clocks/application/create-test-clock.js';
import { CancelSubscriptionCommand } from '#subscriptions/application/cancel-subscription.js';
import { PauseSubscriptionCommand } from '#subscriptions/application/pause-subscription.js';
import { ResumeSubscriptionCommand } from '#subscriptions/application/resume-subscription.js';
import { PayCollectionCommand } from '#collections/application/pay-collection.js';
import { VoidCollectionCommand } from '#collections/application/void-collection.js';
import { RefundCollectionCommand } from '#collections/application/refund-collection.js';
import { SendCollectionCommand } from '#collections/application/send-collection.js';
import { AdvanceTestClockCommand } from '#test-clocks/application/advance-test-clock.js';
import { FINAL_STATES } from '#subscriptions/domain/subscription.decider.js';
import { PAYABLE, SENDABLE } from '#collections/domain/collection/collection.state.js';
import { CreateProductDto } from '#catalog/http/dto/product.dto.js';
import { CreatePriceDto } from '#catalog/http/dto/price.dto.js';
import { CreateCustomerDto } from '#customers/http/dto/customer.dto.js';
import { CancelSubscriptionDto, CreateSubscriptionDto, PauseSubscriptionDto } from '#subscriptions/http/dto/subscription.dto.js';
import { CreateCollectionDto, PayCollectionDto, RefundCollectionDto } from '#collections/http/dto/collection.dto.js';
import { AdvanceTestClockDto, CreateTestClockDto } from '#test-clocks/http/dto/test-clock.dto.js';
import type { Permission } from '#team/domain/roles.js';
import { IsString, MaxLength } from 'class-validator';
import { EraseCustomerCommand } from '#customers/application/erase-customer.js';
import { invalidParam } from '#shared/errors.js';

type Fields = Record<string, string>;
type Body = Record<string, any>;

/** A field of a form: its name is the API's parameter name, so the API's `param` lands next to it. */
export interface FormField {
  name: string;
  type?: 'text' | 'select' | 'number' | 'hidden';
  options?: string[];
  /** Message keys (dashboard-messages.ts), like the form's title and submit. */
  hint?: string;
  value?: string;
  testOnly?: boolean;
}

/**
 * A dashboard form: the fields it shows, how a post becomes the API's JSON body, the class-validator
 * DTO of the API endpoint that validates it, and the command the API runs.
 */
export interface DashboardForm {
  title: string;
  fields: FormField[];
  dto: new () => object;
  body: (f: Fields) => Body;
  command: (ctx: CommandContext, body: Body, id?: string) => object;
  /** Where the object lives after creation (resource of the detail page). */
  resource: string;
  /** The button's label (a message key; so is `title`). */
  submit: string;
  /** What the member's role must allow (checked on the server at every post, and the form is not offered without it). */
  permission: Permission;
  danger?: boolean;
  /**
   * An action on one object: whether its page offers it, from the object's status as the read model
   * shows it (the same rule as the command's; the command still decides, so a stale page's button
   * answers the command's refusal).
   */
  offered?: (doc: Record<string, unknown>) => boolean;
}

const statusIn = (statuses: readonly string[]) => (doc: Record<string, unknown>) => statuses.includes(String(doc.status));

/** Only what was filled in: an empty field is a parameter not sent (the API then says what is missing). */
const given = (f: Fields, ...names: string[]) => Object.fromEntries(names.filter((n) => f[n] !== undefined && f[n].trim() !== '').map((n) => [n, f[n].trim()]));
/** A whole number as the API expects it; anything else is passed as typed, for the API to refuse by name. */
const int = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : /^-?\d+$/.test(v.trim()) ? Number.parseInt(v.trim(), 10) : v);
const compact = (o: Body) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
/** The customer and one item (price and quantity): the first fields of the subscription and collection forms. */
const customerAndItemFields = (priceHint: string): FormField[] => [
  { name: 'customer', hint: 'dash.hint.customer' },
  { name: 'items[0][price]', hint: priceHint },
  { name: 'items[0][quantity]', type: 'number', value: '1' },
];
/** The one item of those forms, as the API's `items`. */
const firstItem = (f: Fields) => [compact({ price: f['items[0][price]']?.trim() || undefined, quantity: int(f['items[0][quantity]']) })];

export const CREATE_FORMS: Record<string, DashboardForm> = {
  product: {
    title: 'dash.form.product.title',
    permission: 'catalog.write',
    resource: 'products',
    submit: 'dash.form.product.submit',
    fields: [{ name: 'name' }, { name: 'description' }],
    dto: CreateProductDto,
    body: (f) => given(f, 'name', 'description'),
    command: (ctx, body) => new CreateProductCommand(ctx, body as never),
  },
  price: {
    title: 'dash.form.price.title',
    permission: 'catalog.write',
    resource: 'prices',
    submit: 'dash.form.price.submit',
    fields: [
      { name: 'product_id', hint: 'dash.hint.product_id' },
      { name: 'type', type: 'select', options: ['recurring', 'one_time'] },
      { name: 'billing_period', type: 'select', options: ['', 'day', 'week', 'month', 'year'] },
      { name: 'billing_interval', type: 'number', hint: 'dash.hint.billing_interval' },
      { name: 'currency', value: 'COP' },
      { name: 'unit_price', hint: 'dash.hint.unit_price' },
    ],
    dto: CreatePriceDto,
    body: (f) => compact({ ...given(f, 'product_id', 'type', 'billing_period', 'currency', 'unit_price'), billing_interval: int(f.billing_interval) }),
    command: (ctx, body) => new CreatePriceCommand(ctx, body as never),
  },
  customer: {
    title: 'dash.form.customer.title',
    permission: 'customers.write',
    resource: 'customers',
    submit: 'dash.form.customer.submit',
    fields: [{ name: 'email' }, { name: 'name' }, { name: 'phone' }, { name: 'document_type', type: 'select', options: ['', 'CC', 'CE', 'NIT', 'PP', 'TI'] }, { name: 'document_number' }],
    dto: CreateCustomerDto,
    body: (f) => given(f, 'email', 'name', 'phone', 'document_type', 'document_number'),
    command: (ctx, body) => new CreateCustomerCommand(ctx, body as never),
  },
  subscription: {
    title: 'dash.form.subscription.title',
    permission: 'subscriptions.write',
    resource: 'subscriptions',
    submit: 'dash.form.subscription.submit',
    fields: [
      ...customerAndItemFields('dash.hint.price'),
      { name: 'collection_method', type: 'select', options: ['charge', 'collect'] },
      { name: 'days_until_due', type: 'number', hint: 'dash.hint.collect_only' },
      { name: 'payment_information[card][number]', hint: 'dash.hint.card_number' },
      { name: 'payment_information[card][exp_month]', type: 'number' },
      { name: 'payment_information[card][exp_year]', type: 'number' },
      { name: 'payment_information[card][cvc]' },
    ],
    dto: CreateSubscriptionDto,
    body: (f) => {
      const number = (f['payment_information[card][number]'] ?? '').replace(/[\s-]/g, '');
      return compact({
        ...given(f, 'customer', 'collection_method'),
        items: firstItem(f),
        days_until_due: int(f.days_until_due),
        payment_information: number
          ? { gateway: 'gateway_a', type: 'card', card: compact({ number, exp_month: int(f['payment_information[card][exp_month]']), exp_year: int(f['payment_information[card][exp_year]']), cvc: f['payment_information[card][cvc]'] || undefined }) }
          : undefined,
      });
    },
    command: (ctx, body) => new CreateSubscriptionCommand(ctx, body as never),
  },
  collection: {
    title: 'dash.form.collection.title',
    permission: 'collections.write',
    resource: 'collections',
    submit: 'dash.form.collection.submit',
    fields: [
      ...customerAndItemFields('dash.hint.price_one_time'),
      { name: 'collection_method', type: 'select', options: ['collect', 'charge'] },
      { name: 'days_until_due', type: 'number' },
      { name: 'description' },
    ],
    dto: CreateCollectionDto,
    body: (f) => compact({ ...given(f, 'customer', 'collection_method', 'description'), items: firstItem(f), days_until_due: int(f.days_until_due) }),
    command: (ctx, body) => new CreateCollectionCommand(ctx, body as never),
  },
  test_clock: {
    title: 'dash.form.test_clock.title',
    permission: 'test_clocks.write',
    resource: 'test_clocks',
    submit: 'dash.form.test_clock.submit',
    fields: [{ name: 'frozen_time', hint: 'dash.hint.iso_time' }, { name: 'name' }],
    dto: CreateTestClockDto,
    body: (f) => given(f, 'frozen_time', 'name'),
    command: (ctx, body) => new CreateTestClockCommand(ctx, body as never),
  },
};

/** Actions on one object: `resource/action`. */
/** The erasure's confirmation: the member types the customer's id (docs/personal-data.md). */
export class EraseCustomerConfirmDto {
  @IsString()
  @MaxLength(100)
  confirm!: string;
}

export const ACTIONS: Record<string, Record<string, DashboardForm>> = {
  customers: {
    // Crypto-shredding (docs/personal-data.md): owners and admins, confirmed by typing the customer's id.
    erase: {
      title: 'dash.action.customers.erase.title', permission: 'customers.erase', resource: 'customers', submit: 'dash.action.customers.erase.submit', danger: true,
      offered: (doc) => !doc.erased_at,
      fields: [{ name: 'confirm', hint: 'dash.hint.erase_confirm' }],
      dto: EraseCustomerConfirmDto,
      body: (f) => given(f, 'confirm'),
      command: (ctx, b, id) => {
        if (String(b.confirm ?? '').trim() !== id) throw invalidParam('confirm', `Type the customer's id (${id}) to confirm the erasure`);
        return new EraseCustomerCommand(ctx, id!);
      },
    },
  },
  subscriptions: {
    cancel: {
      title: 'dash.action.subscriptions.cancel.title', permission: 'subscriptions.write', resource: 'subscriptions', submit: 'dash.action.subscriptions.cancel.submit', danger: true,
      offered: (doc) => !(FINAL_STATES as readonly string[]).includes(String(doc.status)),
      fields: [{ name: 'cancel_at', type: 'select', options: ['period_end', 'now'] }],
      dto: CancelSubscriptionDto,
      body: (f) => given(f, 'cancel_at'),
      command: (ctx, b, id) => new CancelSubscriptionCommand(ctx, id!, b.cancel_at),
    },
    pause: {
      title: 'dash.action.subscriptions.pause.title', permission: 'subscriptions.write', resource: 'subscriptions', submit: 'dash.action.subscriptions.pause.submit',
      offered: statusIn(['active']),
      fields: [{ name: 'resumes_at', hint: 'dash.hint.resumes_at' }],
      dto: PauseSubscriptionDto,
      body: (f) => given(f, 'resumes_at'),
      command: (ctx, b, id) => new PauseSubscriptionCommand(ctx, id!, b.resumes_at ?? null),
    },
    resume: {
      title: 'dash.action.subscriptions.resume.title', permission: 'subscriptions.write', resource: 'subscriptions', submit: 'dash.action.subscriptions.resume.submit', fields: [], dto: Object as never, body: () => ({}),
      offered: statusIn(['paused']),
      command: (ctx, _b, id) => new ResumeSubscriptionCommand(ctx, id!),
    },
    // A cancellation scheduled for later, withdrawn: the API's resume on such a subscription.
    keep: {
      title: 'dash.action.subscriptions.keep.title', permission: 'subscriptions.write', resource: 'subscriptions', submit: 'dash.action.subscriptions.keep.submit', fields: [], dto: Object as never, body: () => ({}),
      offered: (doc) => !!doc.cancel_at && ['pending_cancel', 'past_due', 'unpaid'].includes(String(doc.status)),
      command: (ctx, _b, id) => new ResumeSubscriptionCommand(ctx, id!),
    },
  },
  collections: {
    pay_out_of_band: {
      title: 'dash.action.collections.pay_out_of_band.title', permission: 'collections.write', resource: 'collections', submit: 'dash.action.collections.pay_out_of_band.submit',
      offered: statusIn(PAYABLE),
      fields: [{ name: 'out_of_band_proof', hint: 'dash.hint.proof' }],
      dto: PayCollectionDto,
      body: (f) => ({ paid_out_of_band: true, ...given(f, 'out_of_band_proof') }),
      command: (ctx, b, id) => new PayCollectionCommand(ctx, id!, b as never),
    },
    send: {
      title: 'dash.action.collections.send.title', permission: 'collections.write', resource: 'collections', submit: 'dash.action.collections.send.submit', fields: [], dto: Object as never, body: () => ({}),
      offered: statusIn(SENDABLE),
      command: (ctx, _b, id) => new SendCollectionCommand(ctx, id!),
    },
    refund: {
      title: 'dash.action.collections.refund.title', permission: 'collections.refund', resource: 'collections', submit: 'dash.action.collections.refund.submit', danger: true,
      offered: statusIn(['paid']),
      fields: [{ name: 'amount', hint: 'dash.hint.amount' }, { name: 'reason' }],
      dto: RefundCollectionDto,
      body: (f) => given(f, 'amount', 'reason'),
      command: (ctx, b, id) => new RefundCollectionCommand(ctx, id!, b),
    },
    void: {
      title: 'dash.action.collections.void.title', permission: 'collections.write', resource: 'collections', submit: 'dash.action.collections.void.submit', danger: true, fields: [], dto: Object as never, body: () => ({}),
      offered: statusIn(PAYABLE),
      command: (ctx, _b, id) => new VoidCollectionCommand(ctx, id!),
    },
  },
  test_clocks: {
    advance: {
      title: 'dash.action.test_clocks.advance.title', permission: 'test_clocks.write', resource: 'test_clocks', submit: 'dash.action.test_clocks.advance.submit',
      fields: [{ name: 'frozen_time', hint: 'dash.hint.later' }],
      dto: AdvanceTestClockDto,
      body: (f) => given(f, 'frozen_time'),
      command: (ctx, b, id) => new AdvanceTestClockCommand(ctx, id!, b.frozen_time),
    },
  },
};
