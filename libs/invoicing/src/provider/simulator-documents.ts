import PDFDocument from 'pdfkit';
import QRCode from 'qrcode';
import { ACCOUNT_TIME_ZONE, calendarDayOf } from '#shared/dates.js';
import { Money } from '#shared/money.js';
import { RETENTION_UNITS, unitDivisor } from '#shared/retentions.js';
import { CO_DEPARTMENTS, CO_DOCUMENT_TYPES } from '#country-parameters/data/co.parameters.js';
import { departmentCode, municipalitiesNamed } from '#country-parameters/domain/co-parameters.js';
import { formatDate, formatMoney } from '#web/format.js';
import type { InvoiceLine, RetentionLine, RetentionType } from '../domain/invoice-amounts.js';

/**
 * The simulated provider's fiscal documents, as a DIAN-authorised provider returns them: the
 * electronic invoice's (or credit note's) UBL 2.1 XML in the DIAN's profile, and its graphic
 * representation, a PDF a customer can read (pdfkit), with the CUFE's QR code (qrcode). Rendered
 * from what the service knows of the document when it is fetched; reasonable, not exhaustive (no
 * digital signature, no numbering resolution: the simulator has none).
 */

export interface FiscalParty {
  name: string;
  /** DIAN identity document (`CC`, `NIT`, …) and its number, when known. */
  document_type: string | null;
  document_number: string | null;
  email: string | null;
  address: { address_1: string; address_2: string | null; city: string; state: string; postcode: string | null; country: string } | null;
}

export interface FiscalInvoiceDocument {
  kind: 'invoice';
  id: string;
  number: string;
  cufe: string;
  issued_at: string;
  due_date: string | null;
  currency: string;
  is_test: boolean;
  supplier: FiscalParty;
  customer: FiscalParty;
  lines: InvoiceLine[];
  subtotal: string;
  tax_total: string;
  total: string;
  retentions: RetentionLine[];
  retention_total: string;
  /** `01` contado, `02` crédito (a due date after the issue day). */
  payment_form: '1' | '2';
}

export interface FiscalCreditNoteDocument {
  kind: 'credit_note';
  id: string;
  number: string;
  cude: string;
  issued_at: string;
  currency: string;
  is_test: boolean;
  supplier: FiscalParty;
  customer: FiscalParty;
  amount: string;
  reason: string;
  invoice: { number: string | null; cufe: string | null; issued_at: string | null };
}

export type FiscalDocument = FiscalInvoiceDocument | FiscalCreditNoteDocument;

/** DIAN tax scheme codes (Anexo técnico 1.9, 13.2.2): taxes on the lines and the withholdings. */
const TAX_NAMES: Record<string, string> = { '01': 'IVA', '02': 'IC', '03': 'ICA', '04': 'INC' };
const WITHHOLDING: Record<RetentionType, { code: string; name: string; label: string }> = {
  reteiva: { code: '05', name: 'ReteIVA', label: 'ReteIVA' },
  retefte: { code: '06', name: 'ReteRenta', label: 'ReteFuente' },
  reteica: { code: '07', name: 'ReteICA', label: 'ReteICA' },
};

/**
 * Each withholding's rate in the unit the rest of the service quotes it (RETENTION_UNITS: ReteICA per
 * thousand, ReteIVA and ReteFuente percent): shown so on the PDF, and as a percent in UBL's `Percent`.
 */
const perMille = (r: RetentionLine) => RETENTION_UNITS[r.type] === 'per_mille';
const withholdingPercent = (r: RetentionLine) => new Money(r.rate).times(100).div(unitDivisor(RETENTION_UNITS[r.type])).toFixed();
const withholdingRate = (r: RetentionLine) => (perMille(r) ? `${new Money(r.rate).toFixed().replace('.', ',')} ‰` : percent(r.rate));

/** Where DIAN shows a document from its key (production; `-hab` for the habilitación/test environment). */
export const dianDocumentUrl = (key: string, test: boolean) => `https://catalogo-vpfe${test ? '-hab' : ''}.dian.gov.co/document/searchqr?documentkey=${key}`;

const esc = (v: unknown) =>
  String(v ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');

/** The local (Bogotá) time of an instant, `HH:MM:SS-05:00` as UBL's IssueTime. */
function localTime(iso: string): string {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone: ACCOUNT_TIME_ZONE, hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).format(new Date(iso));
  return `${parts}-05:00`;
}

const dianDocumentType = (code: string | null) => CO_DOCUMENT_TYPES.find((d) => d.code === code)?.dian_code ?? '13';

/** The party's address: DANE codes of the department and municipality when they can be told. */
function addressXml(tag: string, a: FiscalParty['address']): string {
  if (!a) return '';
  const department = a.country.toUpperCase() === 'CO' ? departmentCode(a.state) : null;
  const municipality = department ? municipalitiesNamed(a.city).find((m) => m.department === department) : undefined;
  const departmentName = department ? CO_DEPARTMENTS.find((d) => d.dane_code === department)?.name : a.state;
  return `<cac:${tag}>
          ${municipality ? `<cbc:ID>${municipality.dane_code}</cbc:ID>` : ''}
          <cbc:CityName>${esc(municipality?.name ?? a.city)}</cbc:CityName>
          ${a.postcode ? `<cbc:PostalZone>${esc(a.postcode)}</cbc:PostalZone>` : ''}
          <cbc:CountrySubentity>${esc(departmentName ?? a.state)}</cbc:CountrySubentity>
          ${department ? `<cbc:CountrySubentityCode>${department}</cbc:CountrySubentityCode>` : ''}
          <cac:AddressLine><cbc:Line>${esc([a.address_1, a.address_2].filter(Boolean).join(', '))}</cbc:Line></cac:AddressLine>
          <cac:Country><cbc:IdentificationCode>${esc(a.country.toUpperCase())}</cbc:IdentificationCode></cac:Country>
        </cac:${tag}>`;
}

function partyXml(tag: 'AccountingSupplierParty' | 'AccountingCustomerParty', p: FiscalParty): string {
  const type = p.document_type === 'NIT' ? '1' : '2'; // 1 persona jurídica, 2 persona natural
  const id = p.document_number ? `<cbc:CompanyID schemeAgencyID="195" schemeAgencyName="CO, DIAN (Dirección de Impuestos y Aduanas Nacionales)" schemeName="${dianDocumentType(p.document_type)}">${esc(p.document_number)}</cbc:CompanyID>` : '';
  return `<cac:${tag}>
    <cbc:AdditionalAccountID>${type}</cbc:AdditionalAccountID>
    <cac:Party>
      <cac:PartyName><cbc:Name>${esc(p.name)}</cbc:Name></cac:PartyName>
      <cac:PhysicalLocation>${addressXml('Address', p.address)}</cac:PhysicalLocation>
      <cac:PartyTaxScheme>
        <cbc:RegistrationName>${esc(p.name)}</cbc:RegistrationName>
        ${id}
        <cbc:TaxLevelCode listName="48">R-99-PN</cbc:TaxLevelCode>
        <cac:TaxScheme><cbc:ID>ZZ</cbc:ID><cbc:Name>No aplica</cbc:Name></cac:TaxScheme>
      </cac:PartyTaxScheme>
      <cac:PartyLegalEntity>
        <cbc:RegistrationName>${esc(p.name)}</cbc:RegistrationName>
        ${id}
      </cac:PartyLegalEntity>
      ${p.email ? `<cac:Contact><cbc:ElectronicMail>${esc(p.email)}</cbc:ElectronicMail></cac:Contact>` : ''}
    </cac:Party>
  </cac:${tag}>`;
}

/** Taxes of the lines, grouped by tax scheme and rate: `{code, percent, base, amount}`. */
function taxGroups(lines: InvoiceLine[]): { code: string; percent: string; base: Money; amount: Money }[] {
  const groups = new Map<string, { code: string; percent: string; base: Money; amount: Money }>();
  for (const l of lines) {
    if (!l.tax_id || !l.tax_percentage) continue;
    const key = `${l.tax_id}|${new Money(l.tax_percentage).toFixed()}`;
    const g = groups.get(key) ?? { code: l.tax_id, percent: new Money(l.tax_percentage).toFixed(2), base: new Money(0), amount: new Money(0) };
    g.base = g.base.plus(l.base);
    g.amount = g.amount.plus(l.tax_amount);
    groups.set(key, g);
  }
  return [...groups.values()];
}

const HEADER = `<?xml version="1.0" encoding="UTF-8" standalone="no"?>`;
const NAMESPACES = `xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2" xmlns:ext="urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2" xmlns:sts="dian:gov:co:facturaelectronica:Structures-2-1" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"`;

function dianExtensions(number: string, key: string, test: boolean): string {
  const prefix = /^[A-Z]*/.exec(number)?.[0] ?? '';
  return `<ext:UBLExtensions>
    <ext:UBLExtension>
      <ext:ExtensionContent>
        <sts:DianExtensions>
          ${prefix ? `<sts:InvoiceControl><sts:AuthorizedInvoices><sts:Prefix>${esc(prefix)}</sts:Prefix></sts:AuthorizedInvoices></sts:InvoiceControl>` : ''}
          <sts:InvoiceSource><cbc:IdentificationCode listAgencyID="6" listAgencyName="United Nations Economic Commission for Europe" listSchemeURI="urn:oasis:names:specification:ubl:codelist:gc:CountryIdentificationCode-2.1">CO</cbc:IdentificationCode></sts:InvoiceSource>
          <sts:SoftwareProvider><sts:SoftwareID>simulator</sts:SoftwareID></sts:SoftwareProvider>
          <sts:QRCode>${esc(dianDocumentUrl(key, test))}</sts:QRCode>
        </sts:DianExtensions>
      </ext:ExtensionContent>
    </ext:UBLExtension>
  </ext:UBLExtensions>`;
}

/** The electronic invoice as the provider returns it: UBL 2.1, DIAN profile (Anexo técnico de factura electrónica de venta 1.9). */
export function invoiceXml(d: FiscalInvoiceDocument): string {
  const cur = esc(d.currency);
  const amt = (v: Money | string) => `currencyID="${cur}">${new Money(v).toFixed(2)}`;
  const taxes = taxGroups(d.lines);
  const taxTotals = taxes
    .map(
      (g) => `<cac:TaxTotal>
    <cbc:TaxAmount ${amt(g.amount)}</cbc:TaxAmount>
    <cac:TaxSubtotal>
      <cbc:TaxableAmount ${amt(g.base)}</cbc:TaxableAmount>
      <cbc:TaxAmount ${amt(g.amount)}</cbc:TaxAmount>
      <cac:TaxCategory><cbc:Percent>${g.percent}</cbc:Percent><cac:TaxScheme><cbc:ID>${esc(g.code)}</cbc:ID><cbc:Name>${esc(TAX_NAMES[g.code] ?? g.code)}</cbc:Name></cac:TaxScheme></cac:TaxCategory>
    </cac:TaxSubtotal>
  </cac:TaxTotal>`,
    )
    .join('\n  ');
  const withholdings = d.retentions
    .map(
      (r) => `<cac:WithholdingTaxTotal>
    <cbc:TaxAmount ${amt(r.amount)}</cbc:TaxAmount>
    <cac:TaxSubtotal>
      <cbc:TaxableAmount ${amt(r.base)}</cbc:TaxableAmount>
      <cbc:TaxAmount ${amt(r.amount)}</cbc:TaxAmount>
      <cac:TaxCategory><cbc:Percent>${withholdingPercent(r)}</cbc:Percent><cac:TaxScheme><cbc:ID>${WITHHOLDING[r.type].code}</cbc:ID><cbc:Name>${WITHHOLDING[r.type].name}</cbc:Name></cac:TaxScheme></cac:TaxCategory>
    </cac:TaxSubtotal>
  </cac:WithholdingTaxTotal>`,
    )
    .join('\n  ');
  const lines = d.lines
    .map((l, i) => {
      const tax =
        l.tax_id && l.tax_percentage
          ? `<cac:TaxTotal>
      <cbc:TaxAmount ${amt(l.tax_amount)}</cbc:TaxAmount>
      <cac:TaxSubtotal>
        <cbc:TaxableAmount ${amt(l.base)}</cbc:TaxableAmount>
        <cbc:TaxAmount ${amt(l.tax_amount)}</cbc:TaxAmount>
        <cac:TaxCategory><cbc:Percent>${new Money(l.tax_percentage).toFixed(2)}</cbc:Percent><cac:TaxScheme><cbc:ID>${esc(l.tax_id)}</cbc:ID><cbc:Name>${esc(TAX_NAMES[l.tax_id] ?? l.tax_id)}</cbc:Name></cac:TaxScheme></cac:TaxCategory>
      </cac:TaxSubtotal>
    </cac:TaxTotal>`
          : '';
      return `<cac:InvoiceLine>
    <cbc:ID>${i + 1}</cbc:ID>
    <cbc:InvoicedQuantity unitCode="94">${l.quantity}</cbc:InvoicedQuantity>
    <cbc:LineExtensionAmount ${amt(l.base)}</cbc:LineExtensionAmount>
    ${tax}
    <cac:Item><cbc:Description>${esc(l.description)}</cbc:Description></cac:Item>
    <cac:Price><cbc:PriceAmount ${amt(new Money(l.base).div(l.quantity || 1).toDecimalPlaces(2, Money.ROUND_HALF_UP))}</cbc:PriceAmount><cbc:BaseQuantity unitCode="94">1</cbc:BaseQuantity></cac:Price>
  </cac:InvoiceLine>`;
    })
    .join('\n  ');
  return `${HEADER}
<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" ${NAMESPACES}>
  ${dianExtensions(d.number, d.cufe, d.is_test)}
  <cbc:UBLVersionID>UBL 2.1</cbc:UBLVersionID>
  <cbc:CustomizationID>10</cbc:CustomizationID>
  <cbc:ProfileID>DIAN 2.1: Factura Electrónica de Venta</cbc:ProfileID>
  <cbc:ProfileExecutionID>${d.is_test ? 2 : 1}</cbc:ProfileExecutionID>
  <cbc:ID>${esc(d.number)}</cbc:ID>
  <cbc:UUID schemeID="${d.is_test ? 2 : 1}" schemeName="CUFE-SHA384">${esc(d.cufe)}</cbc:UUID>
  <cbc:IssueDate>${calendarDayOf(d.issued_at)}</cbc:IssueDate>
  <cbc:IssueTime>${localTime(d.issued_at)}</cbc:IssueTime>
  ${d.due_date ? `<cbc:DueDate>${calendarDayOf(d.due_date)}</cbc:DueDate>` : ''}
  <cbc:InvoiceTypeCode>01</cbc:InvoiceTypeCode>
  <cbc:DocumentCurrencyCode>${cur}</cbc:DocumentCurrencyCode>
  <cbc:LineCountNumeric>${d.lines.length}</cbc:LineCountNumeric>
  ${partyXml('AccountingSupplierParty', d.supplier)}
  ${partyXml('AccountingCustomerParty', d.customer)}
  <cac:PaymentMeans>
    <cbc:ID>${d.payment_form}</cbc:ID>
    <cbc:PaymentMeansCode>ZZZ</cbc:PaymentMeansCode>
    ${d.due_date ? `<cbc:PaymentDueDate>${calendarDayOf(d.due_date)}</cbc:PaymentDueDate>` : ''}
  </cac:PaymentMeans>
  ${taxTotals}
  ${withholdings}
  <cac:LegalMonetaryTotal>
    <cbc:LineExtensionAmount ${amt(d.subtotal)}</cbc:LineExtensionAmount>
    <cbc:TaxExclusiveAmount ${amt(taxes.reduce((s, g) => s.plus(g.base), new Money(0)))}</cbc:TaxExclusiveAmount>
    <cbc:TaxInclusiveAmount ${amt(d.total)}</cbc:TaxInclusiveAmount>
    <cbc:PayableAmount ${amt(d.total)}</cbc:PayableAmount>
  </cac:LegalMonetaryTotal>
  ${lines}
</Invoice>
`;
}

/** The electronic credit note (nota crédito) as the provider returns it: UBL 2.1 CreditNote referencing its invoice. */
export function creditNoteXml(d: FiscalCreditNoteDocument): string {
  const cur = esc(d.currency);
  const amount = new Money(d.amount).toFixed(2);
  return `${HEADER}
<CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2" ${NAMESPACES}>
  ${dianExtensions(d.number, d.cude, d.is_test)}
  <cbc:UBLVersionID>UBL 2.1</cbc:UBLVersionID>
  <cbc:CustomizationID>20</cbc:CustomizationID>
  <cbc:ProfileID>DIAN 2.1: Nota Crédito de Factura Electrónica de Venta</cbc:ProfileID>
  <cbc:ProfileExecutionID>${d.is_test ? 2 : 1}</cbc:ProfileExecutionID>
  <cbc:ID>${esc(d.number)}</cbc:ID>
  <cbc:UUID schemeID="${d.is_test ? 2 : 1}" schemeName="CUDE-SHA384">${esc(d.cude)}</cbc:UUID>
  <cbc:IssueDate>${calendarDayOf(d.issued_at)}</cbc:IssueDate>
  <cbc:IssueTime>${localTime(d.issued_at)}</cbc:IssueTime>
  <cbc:CreditNoteTypeCode>91</cbc:CreditNoteTypeCode>
  <cbc:Note>${esc(d.reason)}</cbc:Note>
  <cbc:DocumentCurrencyCode>${cur}</cbc:DocumentCurrencyCode>
  <cbc:LineCountNumeric>1</cbc:LineCountNumeric>
  <cac:DiscrepancyResponse><cbc:ReferenceID>${esc(d.invoice.number)}</cbc:ReferenceID><cbc:ResponseCode>2</cbc:ResponseCode><cbc:Description>${esc(d.reason)}</cbc:Description></cac:DiscrepancyResponse>
  <cac:BillingReference>
    <cac:InvoiceDocumentReference>
      <cbc:ID>${esc(d.invoice.number)}</cbc:ID>
      ${d.invoice.cufe ? `<cbc:UUID schemeName="CUFE-SHA384">${esc(d.invoice.cufe)}</cbc:UUID>` : ''}
      ${d.invoice.issued_at ? `<cbc:IssueDate>${calendarDayOf(d.invoice.issued_at)}</cbc:IssueDate>` : ''}
    </cac:InvoiceDocumentReference>
  </cac:BillingReference>
  ${partyXml('AccountingSupplierParty', d.supplier)}
  ${partyXml('AccountingCustomerParty', d.customer)}
  <cac:LegalMonetaryTotal>
    <cbc:LineExtensionAmount currencyID="${cur}">${amount}</cbc:LineExtensionAmount>
    <cbc:TaxExclusiveAmount currencyID="${cur}">0.00</cbc:TaxExclusiveAmount>
    <cbc:TaxInclusiveAmount currencyID="${cur}">${amount}</cbc:TaxInclusiveAmount>
    <cbc:PayableAmount currencyID="${cur}">${amount}</cbc:PayableAmount>
  </cac:LegalMonetaryTotal>
  <cac:CreditNoteLine>
    <cbc:ID>1</cbc:ID>
    <cbc:CreditedQuantity unitCode="94">1</cbc:CreditedQuantity>
    <cbc:LineExtensionAmount currencyID="${cur}">${amount}</cbc:LineExtensionAmount>
    <cac:Item><cbc:Description>${esc(d.reason)}</cbc:Description></cac:Item>
    <cac:Price><cbc:PriceAmount currencyID="${cur}">${amount}</cbc:PriceAmount></cac:Price>
  </cac:CreditNoteLine>
</CreditNote>
`;
}

/**
 * The QR code's content on the graphic representation (Anexo técnico, 11.7): the document's key
 * figures and the DIAN address where anyone can check it from its CUFE/CUDE.
 */
export function qrContent(d: FiscalDocument): string {
  const key = d.kind === 'invoice' ? d.cufe : d.cude;
  const rows =
    d.kind === 'invoice'
      ? [
          `NumFac: ${d.number}`,
          `FecFac: ${calendarDayOf(d.issued_at)}`,
          `HorFac: ${localTime(d.issued_at)}`,
          `NitFac: ${d.supplier.document_number ?? ''}`,
          `DocAdq: ${d.customer.document_number ?? ''}`,
          `ValFac: ${new Money(d.subtotal).toFixed(2)}`,
          `ValIva: ${taxGroups(d.lines)
            .filter((g) => g.code === '01')
            .reduce((s, g) => s.plus(g.amount), new Money(0))
            .toFixed(2)}`,
          `ValOtroIm: ${taxGroups(d.lines)
            .filter((g) => g.code !== '01')
            .reduce((s, g) => s.plus(g.amount), new Money(0))
            .toFixed(2)}`,
          `ValTolFac: ${new Money(d.total).toFixed(2)}`,
          `CUFE: ${key}`,
        ]
      : [`NumNC: ${d.number}`, `FecNC: ${calendarDayOf(d.issued_at)}`, `NumFac: ${d.invoice.number ?? ''}`, `ValNC: ${new Money(d.amount).toFixed(2)}`, `CUDE: ${key}`];
  return [...rows, `QRCode: ${dianDocumentUrl(key, d.is_test)}`].join('\n');
}

// ---------------------------------------------------------------------------------------------
// The graphic representation (PDF)
// ---------------------------------------------------------------------------------------------

const INK = '#1f2933';
const MUTED = '#52606d';
const RULE = '#cbd2d9';
const BAND = '#f0f4f8';

/** A percent rate as people write it in Spanish (`19 %`, `2,5 %`). */
function percent(rate: string): string {
  return `${new Money(rate).toFixed().replace('.', ',')} %`;
}

const money = (v: string | Money, currency: string) => formatMoney(new Money(v).toFixed(), currency, 'es-CO');
const documentTypeName = (code: string | null) => CO_DOCUMENT_TYPES.find((d) => d.code === code)?.name ?? code ?? '';

function partyLines(p: FiscalParty): string[] {
  const a = p.address;
  const place = a ? [a.city, a.state, a.country.toUpperCase() === 'CO' ? 'Colombia' : a.country].filter(Boolean).join(', ') : null;
  return [
    p.document_number ? `${p.document_type === 'NIT' ? 'NIT' : documentTypeName(p.document_type)}: ${p.document_number}` : 'Documento: no registrado',
    ...(a ? [[a.address_1, a.address_2].filter(Boolean).join(', '), place!] : []),
    ...(p.email ? [`Correo: ${p.email}`] : []),
  ];
}


/** The PDF a customer reads: the graphic representation of the electronic invoice or credit note, in Spanish (es-CO). */
export async function documentPdf(d: FiscalDocument): Promise<Buffer> {
  const key = d.kind === 'invoice' ? d.cufe : d.cude;
  const qr = await QRCode.toBuffer(qrContent(d), { type: 'png', errorCorrectionLevel: 'M', margin: 1, width: 360 });
  const title = d.kind === 'invoice' ? 'Factura electrónica de venta' : 'Nota crédito electrónica';
  const pdf = new PDFDocument({
    size: 'LETTER',
    margin: 48,
    info: { Title: `${title} ${d.number}`, Author: d.supplier.name, Subject: `${d.kind === 'invoice' ? 'CUFE' : 'CUDE'} ${key}`, Creator: 'Simulador de proveedor tecnológico' },
    lang: 'es-CO',
  } as PDFKit.PDFDocumentOptions);
  const chunks: Buffer[] = [];
  pdf.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });

  const left = pdf.page.margins.left;
  const width = pdf.page.width - left - pdf.page.margins.right;
  const right = left + width;

  // Header: the seller, the document's kind and number.
  pdf.fillColor(INK).font('Helvetica-Bold').fontSize(16).text(d.supplier.name, left, 48, { width: width * 0.58 });
  pdf.font('Helvetica').fontSize(9).fillColor(MUTED);
  for (const line of partyLines(d.supplier)) pdf.text(line, { width: width * 0.58 });
  const boxX = left + width * 0.62;
  const boxW = width * 0.38;
  pdf.roundedRect(boxX, 44, boxW, 64, 4).fillAndStroke(BAND, RULE);
  pdf.fillColor(INK).font('Helvetica-Bold').fontSize(10).text(title.toUpperCase(), boxX + 10, 52, { width: boxW - 20, align: 'center' });
  pdf.fontSize(15).text(`No. ${d.number}`, boxX + 10, 72, { width: boxW - 20, align: 'center' });
  if (d.is_test) pdf.font('Helvetica').fontSize(7.5).fillColor('#b44d12').text('Documento de prueba, sin validez fiscal', boxX + 10, 94, { width: boxW - 20, align: 'center' });

  let y = Math.max(pdf.y, 116) + 12;
  pdf.moveTo(left, y).lineTo(right, y).lineWidth(0.5).strokeColor(RULE).stroke();
  y += 10;

  // Dates and payment terms | the buyer.
  const field = (label: string, value: string, x: number, at: number, w: number) => {
    pdf.font('Helvetica').fontSize(7.5).fillColor(MUTED).text(label.toUpperCase(), x, at, { width: w });
    pdf.font('Helvetica').fontSize(10).fillColor(INK).text(value || '—', x, pdf.y + 1, { width: w });
    return pdf.y + 6;
  };
  const colW = width / 2 - 10;
  let ly = y;
  ly = field('Fecha y hora de emisión', `${formatDate(d.issued_at, 'es-CO')}, ${localTime(d.issued_at).slice(0, 5)}`, left, ly, colW);
  if (d.kind === 'invoice') {
    ly = field('Fecha de vencimiento', d.due_date ? formatDate(d.due_date, 'es-CO') : '—', left, ly, colW);
    ly = field('Forma de pago', d.payment_form === '2' ? 'Crédito' : 'Contado', left, ly, colW);
  } else {
    ly = field('Factura que afecta', `${d.invoice.number ?? '—'}${d.invoice.issued_at ? ` del ${formatDate(d.invoice.issued_at, 'es-CO')}` : ''}`, left, ly, colW);
    ly = field('Concepto', d.reason, left, ly, colW);
  }
  ly = field('Moneda', d.currency, left, ly, colW);
  let ry = y;
  pdf.font('Helvetica').fontSize(7.5).fillColor(MUTED).text('ADQUIRIENTE', left + width / 2 + 10, ry, { width: colW });
  pdf.font('Helvetica-Bold').fontSize(11).fillColor(INK).text(d.customer.name, left + width / 2 + 10, pdf.y + 1, { width: colW });
  pdf.font('Helvetica').fontSize(9).fillColor(INK);
  for (const line of partyLines(d.customer)) pdf.text(line, left + width / 2 + 10, pdf.y + 1, { width: colW });
  ry = pdf.y + 6;
  y = Math.max(ly, ry) + 6;

  // Lines.
  const cols =
    d.kind === 'invoice'
      ? [
          { label: '#', w: 0.05, align: 'left' as const },
          { label: 'Descripción', w: 0.37, align: 'left' as const },
          { label: 'Cant.', w: 0.07, align: 'right' as const },
          { label: 'Valor base', w: 0.16, align: 'right' as const },
          { label: 'Impuesto', w: 0.1, align: 'right' as const },
          { label: 'Valor impuesto', w: 0.12, align: 'right' as const },
          { label: 'Total', w: 0.13, align: 'right' as const },
        ]
      : [
          { label: '#', w: 0.05, align: 'left' as const },
          { label: 'Descripción', w: 0.75, align: 'left' as const },
          { label: 'Valor', w: 0.2, align: 'right' as const },
        ];
  const row = (cells: string[], at: number, bold = false) => {
    let x = left;
    let bottom = at;
    pdf.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(bold ? 8 : 9).fillColor(bold ? MUTED : INK);
    cells.forEach((c, i) => {
      const w = cols[i].w * width;
      pdf.text(c, x + 3, at, { width: w - 6, align: cols[i].align });
      bottom = Math.max(bottom, pdf.y);
      x += w;
    });
    return bottom;
  };
  pdf.rect(left, y, width, 18).fill(BAND);
  y = row(cols.map((c) => c.label.toUpperCase()), y + 5, true) + 6;
  const rows: string[][] =
    d.kind === 'invoice'
      ? d.lines.map((l, i) => [
          String(i + 1),
          l.description,
          String(l.quantity),
          money(l.base, d.currency),
          l.tax_id && l.tax_percentage ? `${TAX_NAMES[l.tax_id] ?? l.tax_id} ${percent(l.tax_percentage)}` : 'No gravado',
          money(l.tax_amount, d.currency),
          money(l.amount, d.currency),
        ])
      : [['1', d.reason, money(d.amount, d.currency)]];
  for (const cells of rows) {
    if (y > pdf.page.height - 260) {
      pdf.addPage();
      y = pdf.page.margins.top;
    }
    y = row(cells, y + 4) + 4;
    pdf.moveTo(left, y).lineTo(right, y).lineWidth(0.5).strokeColor(RULE).stroke();
  }
  y += 12;
  if (y > pdf.page.height - 250) {
    pdf.addPage();
    y = pdf.page.margins.top;
  }

  // Totals (right) and the QR code with the CUFE (left).
  const totalsX = left + width * 0.55;
  const totalsW = width * 0.45;
  const total = (label: string, value: string, at: number, strong = false) => {
    pdf.font(strong ? 'Helvetica-Bold' : 'Helvetica').fontSize(strong ? 11 : 9.5).fillColor(INK);
    pdf.text(label, totalsX, at, { width: totalsW * 0.66 });
    const bottom = pdf.y;
    pdf.text(value, totalsX + totalsW * 0.66, at, { width: totalsW * 0.34, align: 'right' });
    return Math.max(bottom, pdf.y) + (strong ? 6 : 4);
  };
  const qrTop = y;
  let ty = y;
  if (d.kind === 'invoice') {
    ty = total('Subtotal (base gravable)', money(d.subtotal, d.currency), ty);
    for (const g of taxGroups(d.lines)) ty = total(`${TAX_NAMES[g.code] ?? g.code} ${percent(g.percent)}`, money(g.amount, d.currency), ty);
    if (taxGroups(d.lines).length === 0) ty = total('Impuestos', money(d.tax_total, d.currency), ty);
    pdf.moveTo(totalsX, ty).lineTo(right, ty).lineWidth(0.5).strokeColor(RULE).stroke();
    ty = total('Total factura', money(d.total, d.currency), ty + 5, true);
    if (d.retentions.length > 0) {
      ty += 4;
      pdf.font('Helvetica').fontSize(7.5).fillColor(MUTED).text('RETENCIONES (PRACTICADAS POR EL ADQUIRIENTE)', totalsX, ty, { width: totalsW });
      ty = pdf.y + 4;
      for (const r of d.retentions) ty = total(`${WITHHOLDING[r.type].label} ${withholdingRate(r)} (base ${money(r.base, d.currency)})`, money(r.amount, d.currency), ty);
      ty = total('Total retenciones', money(d.retention_total, d.currency), ty);
      ty = total('Neto después de retenciones', money(new Money(d.total).minus(d.retention_total), d.currency), ty);
    }
  } else {
    ty = total('Valor de la nota crédito', money(d.amount, d.currency), ty, true);
  }

  const qrSize = 112;
  pdf.image(qr, left, qrTop, { width: qrSize, height: qrSize });
  pdf.font('Helvetica').fontSize(7.5).fillColor(MUTED).text('Escanee para consultar el documento en la DIAN', left, qrTop + qrSize + 2, { width: qrSize + 40 });

  y = Math.max(ty, qrTop + qrSize + 16) + 14;
  pdf.moveTo(left, y).lineTo(right, y).lineWidth(0.5).strokeColor(RULE).stroke();
  y += 8;
  pdf.font('Helvetica-Bold').fontSize(8).fillColor(INK).text(d.kind === 'invoice' ? 'CUFE' : 'CUDE', left, y);
  pdf.font('Courier').fontSize(8).fillColor(INK).text(key, left, pdf.y + 1, { width, lineBreak: true });
  pdf.moveDown(0.6);
  pdf
    .font('Helvetica')
    .fontSize(7.5)
    .fillColor(MUTED)
    .text(
      `Representación gráfica de la ${d.kind === 'invoice' ? 'factura electrónica de venta' : 'nota crédito electrónica'} ${d.number}. ` +
        `Emitida por medio del simulador de proveedor tecnológico del servicio de cobros; consúltela en ${dianDocumentUrl(key, d.is_test)}.`,
      left,
      pdf.y,
      { width },
    );
  pdf.end();
  return done;
}
