import type { CommandContext } from '../../../platform/src/command-context.js';
import { CreateProductCommand } from '../../../catalog/src/application/create-product.js';
import { CreatePriceCommand } from '../../../catalog/src/application/create-price.js';
import { CreateCustomerCommand } from '../../../customers/src/application/create-customer.js';
import { CreateSubscriptionCommand } from '../../../subscriptions/src/application/create-subscription.js';
import { CreateCollectionCommand } from '../../../collections/src/application/create-collection.js';
import { CreateTestClockCommand } from '../../../test-clocks/src/application/create-test-clock.js';
import { CancelSubscriptionCommand } from '../../../subscriptions/src/application/cancel-subscription.js';
import { PauseSubscriptionCommand } from '../../../subscriptions/src/application/pause-subscription.js';
import { ResumeSubscriptionCommand } from '../../../subscriptions/src/application/resume-subscription.js';
import { PayCollectionCommand } from '../../../collections/src/application/pay-collection.js';
import { VoidCollectionCommand } from '../../../collections/src/application/void-collection.js';
import { RefundCollectionCommand } from '../../../collections/src/application/refund-collection.js';
import { SendCollectionCommand } from '../../../collections/src/application/send-collection.js';
import { AdvanceTestClockCommand } from '../../../test-clocks/src/application/advance-test-clock.js';
import { CreateProductDto } from '../../../catalog/src/http/dto/product.dto.js';
import { CreatePriceDto } from '../../../catalog/src/http/dto/price.dto.js';
import { CreateCustomerDto } from '../../../customers/src/http/dto/customer.dto.js';
import { CancelSubscriptionDto, CreateSubscriptionDto, PauseSubscriptionDto } from '../../../subscriptions/src/http/dto/subscription.dto.js';
import { CreateCollectionDto, PayCollectionDto, RefundCollectionDto } from '../../../collections/src/http/dto/collection.dto.js';
import { AdvanceTestClockDto, CreateTestClockDto } from '../../../test-clocks/src/http/dto/test-clock.dto.js';

type Fields = Record<string, string>;
type Body = Record<string, any>;

/** A field of a form: its name is the API's parameter name, so the API's `param` lands next to it. */
export interface FormField {
  name: string;
  type?: 'text' | 'select' | 'number' | 'hidden';
  options?: string[];
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
  /** The button's label. */
  submit: string;
  danger?: boolean;
}

/** Only what was filled in: an empty field is a parameter not sent (the API then says what is missing). */
const given = (f: Fields, ...names: string[]) => Object.fromEntries(names.filter((n) => f[n] !== undefined && f[n].trim() !== '').map((n) => [n, f[n].trim()]));
/** A whole number as the API expects it; anything else is passed as typed, for the API to refuse by name. */
const int = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : /^-?\d+$/.test(v.trim()) ? Number.parseInt(v.trim(), 10) : v);
const compact = (o: Body) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

export const CREATE_FORMS: Record<string, DashboardForm> = {
  product: {
    title: 'New product',
    resource: 'products',
    submit: 'Create product',
    fields: [{ name: 'name' }, { name: 'description' }],
    dto: CreateProductDto,
    body: (f) => given(f, 'name', 'description'),
    command: (ctx, body) => new CreateProductCommand(ctx, body as never),
  },
  price: {
    title: 'New price',
    resource: 'prices',
    submit: 'Create price',
    fields: [
      { name: 'product_id', hint: 'prod_…' },
      { name: 'type', type: 'select', options: ['recurring', 'one_time'] },
      { name: 'billing_period', type: 'select', options: ['', 'day', 'week', 'month', 'year'] },
      { name: 'billing_interval', type: 'number', hint: '3 with month = quarterly' },
      { name: 'currency', value: 'COP' },
      { name: 'unit_price', hint: 'decimal, e.g. 49900' },
    ],
    dto: CreatePriceDto,
    body: (f) => compact({ ...given(f, 'product_id', 'type', 'billing_period', 'currency', 'unit_price'), billing_interval: int(f.billing_interval) }),
    command: (ctx, body) => new CreatePriceCommand(ctx, body as never),
  },
  customer: {
    title: 'New customer',
    resource: 'customers',
    submit: 'Create customer',
    fields: [{ name: 'email' }, { name: 'name' }, { name: 'phone' }, { name: 'document_type', type: 'select', options: ['', 'CC', 'CE', 'NIT', 'PP', 'TI'] }, { name: 'document_number' }],
    dto: CreateCustomerDto,
    body: (f) => given(f, 'email', 'name', 'phone', 'document_type', 'document_number'),
    command: (ctx, body) => new CreateCustomerCommand(ctx, body as never),
  },
  subscription: {
    title: 'New subscription',
    resource: 'subscriptions',
    submit: 'Create subscription',
    fields: [
      { name: 'customer', hint: 'cus_…' },
      { name: 'items[0][price]', hint: 'price_…' },
      { name: 'items[0][quantity]', type: 'number', value: '1' },
      { name: 'collection_method', type: 'select', options: ['charge', 'collect'] },
      { name: 'days_until_due', type: 'number', hint: 'collect only' },
      { name: 'payment_information[card][number]', hint: 'charge: a test card in test mode, e.g. 4242424242424242 (left empty: the customer\'s default method)' },
      { name: 'payment_information[card][exp_month]', type: 'number' },
      { name: 'payment_information[card][exp_year]', type: 'number' },
      { name: 'payment_information[card][cvc]' },
    ],
    dto: CreateSubscriptionDto,
    body: (f) => {
      const number = (f['payment_information[card][number]'] ?? '').replace(/[\s-]/g, '');
      return compact({
        ...given(f, 'customer', 'collection_method'),
        items: [compact({ price: f['items[0][price]']?.trim() || undefined, quantity: int(f['items[0][quantity]']) })],
        days_until_due: int(f.days_until_due),
        payment_information: number
          ? { gateway: 'gateway_a', type: 'card', card: compact({ number, exp_month: int(f['payment_information[card][exp_month]']), exp_year: int(f['payment_information[card][exp_year]']), cvc: f['payment_information[card][cvc]'] || undefined }) }
          : undefined,
      });
    },
    command: (ctx, body) => new CreateSubscriptionCommand(ctx, body as never),
  },
  collection: {
    title: 'New collection',
    resource: 'collections',
    submit: 'Create collection',
    fields: [
      { name: 'customer', hint: 'cus_…' },
      { name: 'items[0][price]', hint: 'price_… (one-time)' },
      { name: 'items[0][quantity]', type: 'number', value: '1' },
      { name: 'collection_method', type: 'select', options: ['collect', 'charge'] },
      { name: 'days_until_due', type: 'number' },
      { name: 'description' },
    ],
    dto: CreateCollectionDto,
    body: (f) => compact({ ...given(f, 'customer', 'collection_method', 'description'), items: [compact({ price: f['items[0][price]']?.trim() || undefined, quantity: int(f['items[0][quantity]']) })], days_until_due: int(f.days_until_due) }),
    command: (ctx, body) => new CreateCollectionCommand(ctx, body as never),
  },
  test_clock: {
    title: 'New test clock',
    resource: 'test_clocks',
    submit: 'Create test clock',
    fields: [{ name: 'frozen_time', hint: 'ISO 8601, e.g. 2026-01-15T12:00:00.000Z' }, { name: 'name' }],
    dto: CreateTestClockDto,
    body: (f) => given(f, 'frozen_time', 'name'),
    command: (ctx, body) => new CreateTestClockCommand(ctx, body as never),
  },
};

/** Actions on one object: `resource/action`. */
export const ACTIONS: Record<string, Record<string, DashboardForm>> = {
  subscriptions: {
    cancel: {
      title: 'Cancel', resource: 'subscriptions', submit: 'Cancel subscription', danger: true,
      fields: [{ name: 'cancel_at', type: 'select', options: ['period_end', 'now'] }],
      dto: CancelSubscriptionDto,
      body: (f) => given(f, 'cancel_at'),
      command: (ctx, b, id) => new CancelSubscriptionCommand(ctx, id!, b.cancel_at),
    },
    pause: {
      title: 'Pause', resource: 'subscriptions', submit: 'Pause',
      fields: [{ name: 'resumes_at', hint: 'optional, ISO 8601' }],
      dto: PauseSubscriptionDto,
      body: (f) => given(f, 'resumes_at'),
      command: (ctx, b, id) => new PauseSubscriptionCommand(ctx, id!, b.resumes_at ?? null),
    },
    resume: {
      title: 'Resume', resource: 'subscriptions', submit: 'Resume', fields: [], dto: Object as never, body: () => ({}),
      command: (ctx, _b, id) => new ResumeSubscriptionCommand(ctx, id!),
    },
  },
  collections: {
    pay_out_of_band: {
      title: 'Paid out of band', resource: 'collections', submit: 'Record payment',
      fields: [{ name: 'out_of_band_proof', hint: 'URL of the proof (receipt, transfer)' }],
      dto: PayCollectionDto,
      body: (f) => ({ paid_out_of_band: true, ...given(f, 'out_of_band_proof') }),
      command: (ctx, b, id) => new PayCollectionCommand(ctx, id!, b as never),
    },
    send: { title: 'Send', resource: 'collections', submit: 'Send to customer', fields: [], dto: Object as never, body: () => ({}), command: (ctx, _b, id) => new SendCollectionCommand(ctx, id!) },
    refund: {
      title: 'Refund', resource: 'collections', submit: 'Refund', danger: true,
      fields: [{ name: 'amount', hint: 'empty: the whole amount' }, { name: 'reason' }],
      dto: RefundCollectionDto,
      body: (f) => given(f, 'amount', 'reason'),
      command: (ctx, b, id) => new RefundCollectionCommand(ctx, id!, b),
    },
    void: { title: 'Void', resource: 'collections', submit: 'Void', danger: true, fields: [], dto: Object as never, body: () => ({}), command: (ctx, _b, id) => new VoidCollectionCommand(ctx, id!) },
  },
  test_clocks: {
    advance: {
      title: 'Advance', resource: 'test_clocks', submit: 'Advance clock',
      fields: [{ name: 'frozen_time', hint: 'ISO 8601, later than now' }],
      dto: AdvanceTestClockDto,
      body: (f) => given(f, 'frozen_time'),
      command: (ctx, b, id) => new AdvanceTestClockCommand(ctx, id!, b.frozen_time),
    },
  },
};
