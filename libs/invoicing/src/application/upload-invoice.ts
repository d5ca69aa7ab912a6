import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { Config } from '#platform/config.js';
import { CONFIG } from '#platform/tokens.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { laterPosition } from '#event-store/positions.js';
import { invalidParam, notFound } from '#shared/errors.js';
import { newId } from '#shared/ids.js';
import { parseDueDate, parseStartDate } from '#shared/dates.js';
import { ownedBy } from '#shared/owner.js';
import type { MetaData } from '#shared/meta-data.js';
import { customerDecider, customerStream } from '#customers/domain/customer.decider.js';
import { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import { collectionCheckoutUrl } from '#collections/application/create-collection.js';
import { collectionDecider, collectionStream } from '#collections/domain/collection.decider.js';
import { type InvoiceCommand, invoiceDecider } from '../domain/invoice.decider.js';
import { claimFiscalNumber, releaseFiscalNumber } from './fiscal-numbers.js';
import { Invoicing } from './invoicing.js';

export interface UploadInvoiceBody {
  customer: string;
  number: string;
  issue_date: string;
  due_date: string;
  currency?: string;
  subtotal: string;
  tax_total: string;
  total: string;
  pdf_url?: string;
  meta_data?: MetaData;
}

export class UploadInvoiceCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly body: UploadInvoiceBody,
  ) {}
}

/** `parse` (a date `YYYY-MM-DD` or an ISO 8601 timestamp) or a 400 naming `param`. */
const isoDate = (v: unknown, param: string, parse: (v: unknown) => string | null) => {
  const iso = parse(v);
  if (iso === null) throw invalidParam(param, `${param} must be an ISO 8601 date or time`);
  return iso;
};

/**
 * Registers an invoice issued elsewhere (number, dates, figures as given) and opens a `collect`
 * collection (type invoice, no items) for its balance, due with it: paying that collection, or a
 * registered payment applied to it, pays the invoice.
 */
@CommandHandler(UploadInvoiceCommand)
export class UploadInvoiceHandler implements ICommandHandler<UploadInvoiceCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly invoicing: Invoicing,
    private readonly clocks: TestClockTime,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  async execute({ ctx: request, body }: UploadInvoiceCommand): Promise<CommandResult> {
    const customer = (await this.executor.load(customerDecider, customerStream(body.customer))).state;
    if (!ownedBy(customer, request)) throw notFound('customer', body.customer, 'customer');
    const testClock = customer.fields!.test_clock ?? null;
    const ctx = await this.clocks.contextFor(request, testClock);
    // A date is a calendar day of the account's zone: issued at its start, due until its end.
    const issueDate = isoDate(body.issue_date, 'issue_date', parseStartDate);
    const dueDate = isoDate(body.due_date, 'due_date', parseDueDate);
    if (dueDate < issueDate) throw invalidParam('due_date', 'due_date must not be before issue_date');
    if (body.pdf_url !== undefined && !/^https?:\/\/\S+$/.test(body.pdf_url)) throw invalidParam('pdf_url', 'pdf_url must be an http(s) URL');
    const invoiceId = newId('inv');
    const collectionId = newId('col');
    const currency = (body.currency ?? 'COP').toUpperCase();
    const create = (now: Date): InvoiceCommand => ({
      type: 'CreateInvoice',
      owner: ctx,
      invoiceId,
      input: {
        source: 'upload',
        customer: body.customer,
        subscription: null,
        collection: collectionId,
        currency,
        lines: [],
        retention_rates: {},
        due_date: dueDate,
        meta_data: body.meta_data ?? {},
        test_clock: testClock,
        uploaded: { number: body.number, issue_date: issueDate, pdf_url: body.pdf_url ?? null, subtotal: body.subtotal, tax_total: body.tax_total, total: body.total },
      },
      now,
    });
    // Refuse invalid fields before claiming the number, so that a refused upload leaves no claim behind.
    invoiceDecider.decide(create(this.executor.now(ctx)), invoiceDecider.initialState);
    // The number is the account's (per mode) once: 409 naming the invoice that has it, nothing written.
    await claimFiscalNumber(this.executor, request, 'invoice', body.number, invoiceId);
    let position: string | null;
    try {
      position = await this.invoicing.decide(ctx, invoiceId, create);
    } catch (error) {
      await releaseFiscalNumber(this.executor, request, 'invoice', body.number, invoiceId).catch(() => undefined);
      throw error;
    }
    const invoice = (await this.invoicing.invoice(invoiceId))!.fields!;
    const created = await this.executor.execute(
      collectionDecider,
      collectionStream(collectionId),
      (now) => ({
        type: 'CreateItemlessCollection' as const,
        owner: ctx,
        collectionId,
        input: {
          kind: 'invoice' as const,
          customer: { id: body.customer, billing_address: customer.fields!.billing_address },
          subscription: null,
          currency: invoice.currency,
          total: invoice.total,
          description: `Invoice ${invoice.number}`,
          meta_data: invoice.meta_data,
          invoice_settings: { invoice_document_id: null, invoice_cost_center: null },
          invoice_retentions: { reteica: null, retefte: null },
          collection_rule_id: null,
          due_date: dueDate,
          balance_of: null,
          applied_to: null,
          billing_reason: 'invoice_upload',
          checkout_url: collectionCheckoutUrl(this.config, collectionId),
          test_clock: testClock,
        },
        now,
      }),
      ctx,
    );
    const attached = await this.executor.execute(
      collectionDecider,
      collectionStream(collectionId),
      (now) => ({ type: 'AttachInvoice' as const, owner: ctx, collectionId, invoiceId, invoiceNumber: invoice.number, now }),
      ctx,
    );
    position = laterPosition(laterPosition(position, created.position), attached.position);
    return { id: invoiceId, position };
  }
}
