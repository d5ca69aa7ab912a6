import { fileURLToPath } from 'node:url';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { card } from '../support/billing-fixtures.js';
import { invoicingApp } from '../support/invoicing-app.js';

/**
 * The simulated invoicing provider's `pdf_url` and `xml_url` answer: the PDF a customer reads (the
 * electronic invoice's graphic representation: parties, lines, taxes, withholdings, totals, number,
 * CUFE and its QR code) and the UBL 2.1 XML, both public and named by the document's random id.
 */
const app = invoicingApp();
const api = app.api;

/** pdf.js's metrics of the 14 standard fonts (the PDF uses Helvetica and Courier). */
const STANDARD_FONTS = fileURLToPath(new URL('../../node_modules/pdfjs-dist/standard_fonts/', import.meta.url));

/** The text of every page of a PDF, as a PDF reader extracts it. */
async function pdfText(data: Buffer): Promise<string> {
  const pdf = await getDocument({ data: new Uint8Array(data), standardFontDataUrl: STANDARD_FONTS, useSystemFonts: false, isEvalSupported: false }).promise;
  const pages: string[] = [];
  for (let i = 1; i <= pdf.numPages; i++) {
    const content = await (await pdf.getPage(i)).getTextContent();
    pages.push(content.items.map((item) => ('str' in item ? item.str : '')).join(' '));
  }
  await pdf.destroy();
  return pages.join('\n').replace(/\s+/g, ' ');
}

/** GET an absolute URL of this service without credentials (as a customer's browser would), the body as bytes. */
const fetchPublic = (url: string) =>
  app.t
    .http()
    .get(new URL(url).pathname)
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });

async function issuedInvoice() {
  const customer = (
    await api().post('/v1/customers', {
      email: `fiscal.${Date.now()}@example.com`,
      name: 'Comercializadora Andina S.A.S.',
      document_type: 'NIT',
      document_number: '900123456',
      billing_address: { address_1: 'Cl 10 # 43-12', city: 'Medellín', state: 'Antioquia', country: 'CO' },
    })
  ).body;
  const product = (await api().post('/v1/products', { name: 'Plan Empresarial', invoice_settings: { invoice_tax_id: '01', invoice_tax_percentage: '19' } })).body;
  const price = (await api().post('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, unit_price: '119000', currency: 'COP' })).body;
  const sub = (
    await api().post('/v1/subscriptions', {
      customer: customer.id,
      items: [{ price: price.id }],
      payment_information: card(),
      first_payment_invoicing: 'after',
      invoice_retentions: { retefte: '2.5' },
    })
  ).body;
  expect(sub.status).toBe('active');
  const [invoice] = (await api().get(`/v1/invoices?customer=${customer.id}`)).body.data;
  expect(invoice).toMatchObject({ status: 'paid', issuance: { status: 'issued' } });
  return { invoice, customer, sub };
}

test('the pdf_url of an issued invoice is its PDF (no credentials): number, CUFE, parties, lines, taxes, withholdings and totals in Spanish', async () => {
  const { invoice } = await issuedInvoice();
  expect(invoice.fiscal.pdf_url).toMatch(new RegExp(`/checkout/fiscal/invoices/${invoice.id}\\.pdf$`));
  const res = await fetchPublic(invoice.fiscal.pdf_url);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('application/pdf');
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect((res.body as Buffer).subarray(0, 5).toString()).toBe('%PDF-');
  const text = await pdfText(res.body as Buffer);
  expect(text).toContain(`No. ${invoice.number}`);
  expect(text).toContain(invoice.fiscal.cufe);
  for (const shown of [
    'FACTURA ELECTRÓNICA DE VENTA',
    'Test merchant',
    'Comercializadora Andina S.A.S.',
    'NIT: 900123456',
    'Plan Empresarial',
    'IVA 19 %',
    '$ 100.000',
    '$ 19.000',
    'Total factura',
    '$ 119.000',
    'ReteFuente 2,5 %',
    '$ 2.500',
    'CUFE',
    'Documento de prueba, sin validez fiscal',
  ]) {
    expect(text).toContain(shown);
  }
});

test('the xml_url of an issued invoice is its UBL 2.1 electronic invoice: number, CUFE, dates, parties, taxes, withholdings, totals', async () => {
  const { invoice } = await issuedInvoice();
  expect(invoice.fiscal.xml_url).toMatch(new RegExp(`/checkout/fiscal/invoices/${invoice.id}\\.xml$`));
  const res = await fetchPublic(invoice.fiscal.xml_url);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('application/xml; charset=utf-8');
  expect(res.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
  const xml = (res.body as Buffer).toString('utf8');
  expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"')).toBe(true);
  expect(xml).toContain('<cbc:UBLVersionID>UBL 2.1</cbc:UBLVersionID>');
  expect(xml).toContain(`<cbc:ID>${invoice.number}</cbc:ID>`);
  expect(xml).toContain(`<cbc:UUID schemeID="2" schemeName="CUFE-SHA384">${invoice.fiscal.cufe}</cbc:UUID>`);
  expect(xml).toContain('<cbc:IssueDate>2026-11-23</cbc:IssueDate>');
  expect(xml).toContain('<cbc:IssueTime>05:00:00-05:00</cbc:IssueTime>');
  expect(xml).toContain('<cbc:RegistrationName>Comercializadora Andina S.A.S.</cbc:RegistrationName>');
  expect(xml).toContain('schemeName="31">900123456</cbc:CompanyID>');
  expect(xml).toContain('<cbc:ID>05001</cbc:ID>'); // Medellín's DANE code
  expect(xml).toMatch(/<cac:TaxTotal>\s*<cbc:TaxAmount currencyID="COP">19000.00<\/cbc:TaxAmount>/);
  expect(xml).toMatch(/<cac:WithholdingTaxTotal>\s*<cbc:TaxAmount currencyID="COP">2500.00<\/cbc:TaxAmount>/);
  expect(xml).toContain('<cbc:PayableAmount currencyID="COP">119000.00</cbc:PayableAmount>');
  // Tags balance (a well-formedness smoke check: every element opened is closed).
  const opened = xml.match(/<[a-zA-Z][\w:]*(?=[\s>])(?![^>]*\/>)/g)!.length;
  const closed = xml.match(/<\/[a-zA-Z][\w:]*>/g)!.length;
  expect(opened).toBe(closed);
});

test("a credit note's pdf_url and xml_url answer too (CUDE, the invoice it affects)", async () => {
  const { invoice, sub } = await issuedInvoice();
  expect((await api().post(`/v1/collections/${sub.latest_collection}/refund`, { amount: '19000', reason: 'Descuento comercial' })).status).toBe(200);
  const [note] = (await api().get(`/v1/invoices/${invoice.id}/credit_notes`)).body.data;
  expect(note.fiscal.pdf_url).toMatch(new RegExp(`/checkout/fiscal/credit_notes/${note.id}\\.pdf$`));
  const pdf = await fetchPublic(note.fiscal.pdf_url);
  expect(pdf.status).toBe(200);
  expect(pdf.headers['content-type']).toBe('application/pdf');
  const text = await pdfText(pdf.body as Buffer);
  expect(text).toContain(`No. ${note.number}`);
  expect(text).toContain(note.fiscal.cufe);
  expect(text).toContain(invoice.number);
  expect(text).toContain('$ 19.000');
  const xml = await fetchPublic(note.fiscal.xml_url);
  expect(xml.status).toBe(200);
  expect((xml.body as Buffer).toString()).toContain(`<cbc:UUID schemeName="CUFE-SHA384">${invoice.fiscal.cufe}</cbc:UUID>`);
});

test('unknown documents, guessable number addresses, uploaded invoices and bad names are 404', async () => {
  const { invoice, customer } = await issuedInvoice();
  const base = new URL(invoice.fiscal.pdf_url);
  for (const path of [
    base.pathname.replace(invoice.id, 'inv_doesnotexist'),
    base.pathname.replace(invoice.id, invoice.number),
    base.pathname.replace('.pdf', '.html'),
    base.pathname.replace('/invoices/', '/credit_notes/'),
  ]) {
    expect((await app.t.http().get(path)).status).toBe(404);
  }
  const uploaded = (
    await api().post('/v1/invoices', { customer: customer.id, number: `UP${Date.now()}`, issue_date: '2026-11-01', due_date: '2026-12-31', subtotal: '1000', tax_total: '0', total: '1000' })
  ).body;
  expect((await app.t.http().get(base.pathname.replace(invoice.id, uploaded.id))).status).toBe(404);
});
