import { createHash } from 'node:crypto';
import { currency as currencyOf } from '#shared/money.js';
import { invoiceAmounts } from '../domain/invoice-amounts.js';
import {
  type InvoicingProvider,
  InvoicingProviderError,
  type IssueCreditNoteRequest,
  type IssueInvoiceRequest,
  type IssuedDocument,
  type IssuedInvoice,
} from './invoicing-provider.port.js';

/** What a test asks the simulator to do for one account and mode: fail the next N calls, answer slowly. */
export interface SimulatorBehaviour {
  fail_next: number;
  delay_ms: number;
}

/**
 * The embedded invoicing provider: deterministic and offline. It computes the taxes and withholdings
 * of the lines (the same rules as the domain's `invoiceAmounts`), returns a CUFE-like SHA-384 of the
 * document's key fields (as the DIAN's CUFE is) and PDF/XML references under `baseUrl` (by document
 * id; the documents themselves are rendered from the read models when fetched). A repeated
 * idempotency key answers the first result. `behave()` makes the next calls fail or answer slowly, so
 * the retry path can be tested (`POST /v1/test_helpers/invoicing_provider`).
 */
export class SimulatedInvoicingProvider implements InvoicingProvider {
  readonly name = 'simulator';
  private readonly issued = new Map<string, IssuedDocument>();
  private readonly behaviour = new Map<string, SimulatorBehaviour>();

  constructor(private readonly baseUrl: string) {}

  behave(accountId: string, mode: string, b: Partial<SimulatorBehaviour>): SimulatorBehaviour {
    const key = `${accountId}:${mode}`;
    const next = { ...(this.behaviour.get(key) ?? { fail_next: 0, delay_ms: 0 }), ...b };
    this.behaviour.set(key, next);
    return next;
  }

  behaviourOf(accountId: string, mode: string): SimulatorBehaviour {
    return this.behaviour.get(`${accountId}:${mode}`) ?? { fail_next: 0, delay_ms: 0 };
  }

  async issueInvoice(r: IssueInvoiceRequest): Promise<IssuedInvoice> {
    const first = this.issued.get(r.idempotencyKey);
    if (first) return first as IssuedInvoice;
    await this.act(r.accountId, r.mode);
    const cur = currencyOf(r.currency)!;
    const amounts = invoiceAmounts(r.lines, r.retentionRates, cur);
    const cufe = sha384([r.number, r.issuedAt, amounts.subtotal, '01', amounts.tax_total, amounts.total, r.accountId, r.customer.document_number ?? r.customer.id, r.mode]);
    const doc: IssuedInvoice = { ...this.refs('invoices', r.idempotencyKey, r, cufe), amounts };
    this.issued.set(r.idempotencyKey, doc);
    return doc;
  }

  async issueCreditNote(r: IssueCreditNoteRequest): Promise<IssuedDocument> {
    const first = this.issued.get(r.idempotencyKey);
    if (first) return first;
    await this.act(r.accountId, r.mode);
    const cude = sha384([r.number, r.issuedAt, r.amount, r.currency, r.invoice.cufe ?? r.invoice.number ?? '', r.accountId, r.mode]);
    const doc = this.refs('credit_notes', r.idempotencyKey, r, cude);
    this.issued.set(r.idempotencyKey, doc);
    return doc;
  }

  /**
   * The document's PDF and XML, served by `FiscalDocumentsController` under `{checkout_url}/fiscal/`:
   * named by the document's id (`inv_…`, `cn_…`: random, unguessable, as a collection page's address
   * is), never by its number (consecutive, guessable, and not unique across accounts).
   */
  private refs(kind: 'invoices' | 'credit_notes', documentId: string, r: { number: string; issuedAt: string }, cufe: string): IssuedDocument {
    const base = `${this.baseUrl}/${kind}/${documentId}`;
    return { provider: this.name, number: r.number, cufe, pdf_url: `${base}.pdf`, xml_url: `${base}.xml`, issued_at: r.issuedAt };
  }

  private async act(accountId: string, mode: string): Promise<void> {
    const b = this.behaviourOf(accountId, mode);
    if (b.delay_ms > 0) await new Promise((resolve) => setTimeout(resolve, b.delay_ms));
    if (b.fail_next > 0) {
      this.behave(accountId, mode, { fail_next: b.fail_next - 1 });
      throw new InvoicingProviderError('provider_unavailable', 'The invoicing provider did not answer (simulated failure)');
    }
  }
}

const sha384 = (parts: string[]) => createHash('sha384').update(parts.join('')).digest('hex');
