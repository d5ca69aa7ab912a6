import { describe, expect, test } from '@jest/globals';
import { fold } from '#shared/decider.js';
import { given } from '#shared/testing/given.js';
import { type InvoiceCommand, type InvoiceEvent, type InvoiceInput, invoiceDecider } from './invoice.decider.js';

const now = new Date('2026-03-01T10:00:00.000Z');
const at = (minutes: number) => new Date(now.getTime() + minutes * 60_000);
const owner = { accountId: 'acct_1', mode: 'test' as const };
const invoiceId = 'inv_1';

const input = (over: Partial<InvoiceInput> = {}): InvoiceInput => ({
  source: 'collection',
  customer: 'cus_1',
  subscription: 'sub_1',
  collection: 'col_1',
  currency: 'COP',
  lines: [{ description: 'Plan Pro', quantity: 1, amount: '119000.00', tax_id: '01', tax_percentage: '19' }],
  retention_rates: { retefte: '2.5', reteiva: '15' },
  due_date: '2026-03-06T10:00:00.000Z',
  meta_data: {},
  test_clock: null,
  ...over,
});
const create = (over: Partial<InvoiceInput> = {}): InvoiceCommand => ({ type: 'CreateInvoice', owner, invoiceId, input: input(over), now });
const fiscal = { provider: 'simulator', cufe: 'abc', pdf_url: 'https://x/inv.pdf', xml_url: 'https://x/inv.xml', issued_at: at(1).toISOString() };
const issued = (): InvoiceCommand => ({
  type: 'RecordInvoiceIssued',
  owner,
  invoiceId,
  number: 'SETT-1',
  fiscal,
  amounts: fold(invoiceDecider, invoiceDecider.decide(create(), invoiceDecider.initialState)).fields!,
  now: at(1),
});
const failure = (minutes: number): InvoiceCommand => ({ type: 'RecordInvoiceIssuanceFailure', owner, invoiceId, error: 'provider_unavailable', now: at(minutes) });
const pay = (amount: string, paymentId = 'pay_1'): InvoiceCommand => ({
  type: 'RecordInvoicePayment',
  owner,
  invoiceId,
  paymentId,
  amount,
  collection: 'col_1',
  paymentMethodType: 'card',
  receipt: null,
  now: at(5),
});
const credit = (amount: string, creditNoteId = 'cn_1', refund: string | null = null): InvoiceCommand => ({
  type: 'CreateCreditNote',
  owner,
  invoiceId,
  creditNoteId,
  amount,
  reason: 'Descuento comercial',
  refund,
  now: at(6),
});
const voidIt = (): InvoiceCommand => ({ type: 'VoidInvoice', owner, invoiceId, now: at(7) });

function history(...commands: InvoiceCommand[]): InvoiceEvent[] {
  const events: InvoiceEvent[] = [];
  for (const c of commands) events.push(...invoiceDecider.decide(c, fold(invoiceDecider, events)));
  return events;
}
const fieldsOf = (events: InvoiceEvent[]) => fold(invoiceDecider, events).fields!;
const types = (events: InvoiceEvent[]) => events.map((e) => e.type);

describe('invoice: create for a collection', () => {
  test('taxes are carved out of tax-inclusive lines; withholdings on the base (ReteFuente) and on the tax (ReteIVA); issuance pending', () => {
    given(invoiceDecider).when(create()).then((events) => {
      expect(types(events)).toEqual(['invoice.created']);
      expect(events[0].data).toMatchObject({
        id: 'inv_1',
        number: null,
        status: 'open',
        subtotal: '100000.00',
        tax_total: '19000.00',
        total: '119000.00',
        amount_due: '119000.00',
        total_paid: '0.00',
        retentions: [
          { type: 'reteiva', rate: '15', base: '19000.00', amount: '2850.00' },
          { type: 'retefte', rate: '2.5', base: '100000.00', amount: '2500.00' },
        ],
        retention_total: '5350.00',
        issuance: { status: 'pending', attempts: 0 },
      });
    });
  });

  test('an id is used once; an unknown currency and no lines are refused', () => {
    given(invoiceDecider, history(create())).when(create()).thenRejects('invalid_state');
    given(invoiceDecider).when(create({ currency: 'XXX1' })).thenRejects('parameter_invalid', 'currency');
    given(invoiceDecider).when(create({ lines: [] })).thenRejects('parameter_missing', 'lines');
  });
});

describe('invoice: issuance through the provider', () => {
  test('issued: number and fiscal reference recorded; recorded once', () => {
    const events = history(create());
    given(invoiceDecider, events).when(issued()).then((e) => {
      expect(types(e)).toEqual(['invoice.issued']);
      expect(fieldsOf([...events, ...e])).toMatchObject({ number: 'SETT-1', fiscal, issuance: { status: 'issued', attempts: 1, next_attempt_at: null } });
    });
    given(invoiceDecider, history(create(), issued())).when(issued()).then([]);
  });

  test('a provider failure is counted and retried later: 1 minute, then 5, then 15, then hourly; the state says so', () => {
    const events = history(create(), failure(0), failure(1), failure(6), failure(21), failure(81));
    expect(types(events).filter((t) => t === 'invoice.issuance_failed')).toHaveLength(5);
    const retries = events.filter((e) => e.type === 'invoice.issuance_failed').map((e) => (e.data as { next_attempt_at: string }).next_attempt_at);
    expect(retries).toEqual([at(1), at(6), at(21), at(81), at(141)].map((d) => d.toISOString()));
    expect(fieldsOf(events).issuance).toEqual({ status: 'failed', attempts: 5, last_error: 'provider_unavailable', next_attempt_at: at(141).toISOString() });
    const after = history(create(), failure(0), failure(1), issued());
    expect(fieldsOf(after).issuance).toMatchObject({ status: 'issued', attempts: 3, next_attempt_at: null });
  });

  test('an uploaded invoice is issued elsewhere: its number and figures as given, nothing to issue', () => {
    const up = create({
      source: 'upload',
      lines: [],
      retention_rates: {},
      uploaded: { number: 'FE-77', issue_date: '2026-02-01T00:00:00.000Z', pdf_url: null, subtotal: '84033.61', tax_total: '15966.39', total: '100000' },
    });
    given(invoiceDecider).when(up).then((e) => expect(e[0].data).toMatchObject({ number: 'FE-77', total: '100000.00', amount_due: '100000.00', issuance: { status: 'external' } }));
    const bad = create({ source: 'upload', uploaded: { number: 'FE-1', issue_date: '2026-02-01T00:00:00.000Z', pdf_url: null, subtotal: '1', tax_total: '1', total: '3' } });
    given(invoiceDecider).when(bad).thenRejects('parameter_invalid', 'total');
  });
});

describe('invoice: payments', () => {
  test('a part leaves it partially_paid; the rest pays it: invoice.paid', () => {
    const part = history(create(), issued(), pay('19000'));
    expect(fieldsOf(part)).toMatchObject({ status: 'partially_paid', total_paid: '19000.00', amount_due: '100000.00' });
    given(invoiceDecider, part).when(pay('100000', 'pay_2')).then((e) => {
      expect(types(e)).toEqual(['invoice.payment_recorded', 'invoice.paid']);
      expect(e[1].data).toMatchObject({ status: 'paid', total_paid: '119000.00', amount_due: '0.00' });
    });
  });

  test('the same payment twice records nothing; more than the amount due is refused', () => {
    given(invoiceDecider, history(create(), pay('19000'))).when(pay('19000')).then([]);
    given(invoiceDecider, history(create())).when(pay('119000.01')).thenRejects('amount_exceeds_balance', 'amount');
  });
});

describe('invoice: void', () => {
  test('an unpaid invoice is voided; again records nothing', () => {
    given(invoiceDecider, history(create())).when(voidIt()).then((e) => expect(types(e)).toEqual(['invoice.voided']));
    given(invoiceDecider, history(create(), voidIt())).when(voidIt()).then([]);
  });

  test('a void invoice asks nothing: its amount due is 0; what was credited before stays', () => {
    expect(fieldsOf(history(create(), voidIt()))).toMatchObject({ status: 'void', total: '119000.00', total_paid: '0.00', amount_credited: '0.00', amount_due: '0.00' });
    expect(fieldsOf(history(create(), credit('19000'), voidIt()))).toMatchObject({ status: 'void', total_paid: '0.00', amount_credited: '19000.00', amount_due: '0.00' });
  });

  test('refused once anything is paid (409); a void invoice takes no payment or credit note', () => {
    given(invoiceDecider, history(create(), pay('1000'))).when(voidIt()).thenRejects('invalid_state');
    given(invoiceDecider, history(create(), voidIt())).when(pay('1000')).thenRejects('invalid_state');
    given(invoiceDecider, history(create(), voidIt())).when(credit('1000')).thenRejects('invalid_state');
  });
});

describe('invoice: credit notes', () => {
  test('a credit note lowers the amount due but is no payment: an unpaid invoice stays open (total_paid 0); one that brings it to zero settles it (paid)', () => {
    const first = history(create(), issued(), credit('19000'));
    expect(types(first).slice(-2)).toEqual(['credit_note.created', 'invoice.credited']);
    expect(fieldsOf(first)).toMatchObject({ status: 'open', total_paid: '0.00', amount_credited: '19000.00', amount_due: '100000.00', credit_notes: ['cn_1'] });
    expect(first[first.length - 1].data).toMatchObject({ status: 'open', total_paid: '0.00' });
    given(invoiceDecider, first).when(credit('100000', 'cn_2')).then((e) => {
      expect(types(e)).toEqual(['credit_note.created', 'invoice.credited', 'invoice.paid']);
      expect(e[2].data).toMatchObject({ status: 'paid', amount_due: '0.00' });
    });
  });

  test('never below zero: more than the amount due is refused; a bad amount or no reason too', () => {
    given(invoiceDecider, history(create(), pay('100000'))).when(credit('19000.01')).thenRejects('credit_note_exceeds_balance', 'amount');
    given(invoiceDecider, history(create())).when(credit('0')).thenRejects('parameter_invalid', 'amount');
    given(invoiceDecider, history(create())).when({ ...(credit('10') as Extract<InvoiceCommand, { type: 'CreateCreditNote' }>), reason: ' ' }).thenRejects('parameter_invalid', 'reason');
  });

  test('on a partly paid invoice a credit note leaves it partially_paid: money was paid and some is still due', () => {
    expect(fieldsOf(history(create(), pay('19000'), credit('50000')))).toMatchObject({ status: 'partially_paid', total_paid: '19000.00', amount_credited: '50000.00', amount_due: '50000.00' });
  });

  test('a refund credit note returns paid money: total_paid goes down, the invoice stays settled', () => {
    const events = history(create(), pay('119000'), credit('19000', 'cn_r', 're_1'));
    expect(fieldsOf(events)).toMatchObject({ status: 'paid', total_paid: '100000.00', amount_credited: '19000.00', amount_due: '0.00' });
  });

  test('voiding a credit note gives the balance back; a refund credit note cannot be voided', () => {
    const events = history(create(), credit('19000'), { type: 'VoidCreditNote', owner, invoiceId, creditNoteId: 'cn_1', now: at(8) });
    expect(types(events).slice(-2)).toEqual(['credit_note.voided', 'invoice.credit_reversed']);
    expect(fieldsOf(events)).toMatchObject({ status: 'open', amount_credited: '0.00', amount_due: '119000.00' });
    given(invoiceDecider, history(create(), pay('119000'), credit('1000', 'cn_r', 're_1')))
      .when({ type: 'VoidCreditNote', owner, invoiceId, creditNoteId: 'cn_r', now: at(8) })
      .thenRejects('invalid_state');
  });

  test('a credit note failed at the provider is retried; issued once', () => {
    const events = history(create(), credit('1000'), { type: 'RecordCreditNoteIssuanceFailure', owner, invoiceId, creditNoteId: 'cn_1', error: 'timeout', now: at(6) });
    const cn = fold(invoiceDecider, events).creditNotes.cn_1;
    expect(cn.issuance).toEqual({ status: 'failed', attempts: 1, last_error: 'timeout', next_attempt_at: at(7).toISOString() });
    const ok: InvoiceCommand = { type: 'RecordCreditNoteIssued', owner, invoiceId, creditNoteId: 'cn_1', number: 'NC-1', fiscal, now: at(7) };
    given(invoiceDecider, events).when(ok).then((e) => expect(types(e)).toEqual(['credit_note.issued']));
  });
});

describe('invoice: tenancy', () => {
  test('another account or mode does not find it', () => {
    given(invoiceDecider, history(create())).when({ type: 'VoidInvoice', owner: { accountId: 'acct_2', mode: 'test' }, invoiceId, now }).thenRejects('resource_missing');
  });
});
