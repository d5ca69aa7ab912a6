import { Controller, Get, Inject, Param, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '#accounts/http/basic-auth.guard.js';
import { READ_STORE } from '#platform/tokens.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { SecretSealer } from '#shared/sealing.js';
import { FISCAL_BUYERS, type FiscalBuyer, type FiscalBuyerDoc } from '#customers/personal-data/fiscal-retention.js';
import { ERASED_TEXT } from '#customers/personal-data/pii-cipher.js';
import { calendarDayOf } from '#shared/dates.js';
import { PageError, PageErrorFilter } from '#web/page-errors.js';
import type { CreditNoteDoc, InvoiceDoc } from '../read-models/invoice.read-model.js';
import { creditNoteXml, documentPdf, type FiscalDocument, type FiscalParty, invoiceXml } from '../provider/simulator-documents.js';

type CustomerDoc = { name?: string | null; email?: string | null; document_type?: string | null; document_number?: string | null; billing_address?: FiscalParty['address'] };

/**
 * The simulated invoicing provider's documents, `{checkout_url}/fiscal/invoices/<inv_…>.pdf|.xml` and
 * `…/fiscal/credit_notes/<cn_…>.pdf|.xml`: the addresses it returned as `pdf_url` / `xml_url`, handed to
 * customers, so public like the collection page and, like it, named by the document's random id (the
 * number is consecutive and guessable). Served only for documents this provider issued (an uploaded
 * invoice's `pdf_url` is the merchant's own). The PDF as `application/pdf`, the XML as
 * `application/xml`, both `no-store` and `nosniff`; an unknown document is the pages' 404.
 */
@ApiExcludeController()
@Controller('checkout/fiscal')
@UseFilters(PageErrorFilter)
export class FiscalDocumentsController {
  constructor(
    @Inject(READ_STORE) private readonly store: ReadStore,
    private readonly sealer: SecretSealer,
  ) {}

  @Public()
  @Get('invoices/:file')
  async invoice(@Param('file') file: string, @Res() reply: FastifyReply) {
    const { id, format } = parse(file, 'inv');
    const doc = await this.store.get<InvoiceDoc & { _deleted?: boolean }>('invoices', id);
    if (!doc || doc._deleted || !issuedHere(doc.fiscal, 'invoices', id) || !doc.number || !doc.fiscal?.cufe) throw new PageError(404, 'not_found');
    const document: FiscalDocument = {
      kind: 'invoice',
      id,
      number: doc.number,
      cufe: doc.fiscal.cufe,
      issued_at: doc.fiscal.issued_at,
      due_date: doc.due_date,
      currency: doc.currency,
      is_test: doc.is_test,
      supplier: await this.supplier(doc._account),
      customer: await this.customer(doc.customer),
      lines: doc.lines,
      subtotal: doc.subtotal,
      tax_total: doc.tax_total,
      total: doc.total,
      retentions: doc.retentions,
      retention_total: doc.retention_total,
      payment_form: doc.due_date && calendarDayOf(doc.due_date) > calendarDayOf(doc.fiscal.issued_at) ? '2' : '1',
    };
    return send(reply, document, format);
  }

  @Public()
  @Get('credit_notes/:file')
  async creditNote(@Param('file') file: string, @Res() reply: FastifyReply) {
    const { id, format } = parse(file, 'cn');
    const doc = await this.store.get<CreditNoteDoc & { _deleted?: boolean }>('credit_notes', id);
    if (!doc || doc._deleted || !issuedHere(doc.fiscal, 'credit_notes', id) || !doc.number || !doc.fiscal?.cufe) throw new PageError(404, 'not_found');
    const invoice = await this.store.get<InvoiceDoc>('invoices', doc.invoice);
    const document: FiscalDocument = {
      kind: 'credit_note',
      id,
      number: doc.number,
      cude: doc.fiscal.cufe,
      issued_at: doc.fiscal.issued_at,
      currency: doc.currency,
      is_test: doc.is_test,
      supplier: await this.supplier(doc._account),
      customer: await this.customer(doc.customer),
      amount: doc.amount,
      reason: doc.reason,
      invoice: { number: invoice?.number ?? null, cufe: invoice?.fiscal?.cufe ?? null, issued_at: invoice?.fiscal?.issued_at ?? invoice?.issue_date ?? null },
    };
    return send(reply, document, format);
  }

  /** The seller: the merchant's account (its name; the account has no tax id of its own yet). */
  private async supplier(accountId: string): Promise<FiscalParty> {
    const account = await this.store.get<{ name?: string }>('accounts', accountId);
    return { name: account?.name ?? accountId, document_type: null, document_number: null, email: null, address: null };
  }

  private async customer(customerId: string): Promise<FiscalParty> {
    const c = await this.store.get<CustomerDoc & { erased_at?: string }>('customers', customerId);
    // An erased customer: the buyer identification tax law keeps, sealed apart (docs/personal-data.md);
    // none kept (no issued invoice then), or purged at its `kept_until`: the placeholders.
    if (c?.erased_at) {
      const kept = await this.store.get<FiscalBuyerDoc>(FISCAL_BUYERS, customerId);
      const b: FiscalBuyer | null = kept ? (JSON.parse(this.sealer.open(kept.sealed)) as FiscalBuyer) : null;
      return {
        name: b?.name ?? b?.email ?? ERASED_TEXT,
        document_type: b?.document_type ?? null,
        document_number: b?.document_number ?? null,
        email: b?.email ?? null,
        address: (b?.billing_address as FiscalParty['address']) ?? null,
      };
    }
    return {
      name: c?.name ?? c?.email ?? customerId,
      document_type: c?.document_type ?? null,
      document_number: c?.document_number ?? null,
      email: c?.email ?? null,
      address: c?.billing_address ?? null,
    };
  }
}

function parse(file: string, prefix: 'inv' | 'cn'): { id: string; format: 'pdf' | 'xml' } {
  const m = new RegExp(`^(${prefix}_[0-9A-Za-z]{1,64})\\.(pdf|xml)$`).exec(file);
  if (!m) throw new PageError(404, 'not_found');
  return { id: m[1], format: m[2] as 'pdf' | 'xml' };
}

/** Issued by this simulator at this very address (a document of another provider, or an upload, is not ours to serve). */
function issuedHere(fiscal: { provider: string; pdf_url: string | null } | null | undefined, kind: string, id: string): boolean {
  return !!fiscal && fiscal.provider === 'simulator' && !!fiscal.pdf_url && fiscal.pdf_url.endsWith(`/fiscal/${kind}/${id}.pdf`);
}

async function send(reply: FastifyReply, document: FiscalDocument, format: 'pdf' | 'xml') {
  const filename = `${document.kind === 'invoice' ? 'factura' : 'nota-credito'}-${document.number.replace(/[^0-9A-Za-z_-]/g, '')}.${format}`;
  reply
    .header('Cache-Control', 'no-store')
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer')
    .header('Content-Disposition', `inline; filename="${filename}"`);
  if (format === 'xml') {
    // No script or style can run from it, even if a browser renders it.
    reply.header('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
    return reply.type('application/xml; charset=utf-8').send(document.kind === 'invoice' ? invoiceXml(document) : creditNoteXml(document));
  }
  return reply.type('application/pdf').send(await documentPdf(document));
}
