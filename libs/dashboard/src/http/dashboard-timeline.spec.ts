import { describe, expect, test } from '@jest/globals';
import { actorWords, stateAfterFrom, type TimelineEntry, timelineMethodIds, timelineSentences } from './dashboard-timeline.js';
import { pages } from './dashboard-page.js';

const entry = (id: string) => ({ data: { object: { id } } });

describe('the timeline\'s "state after this event" links', () => {
  test('start at the subscription\'s own first event: a checkout session completed before it gets none', () => {
    expect(stateAfterFrom([entry('cs_1'), entry('sub_1'), entry('col_1'), entry('cs_1')], 'sub_1')).toBe(1);
    expect(stateAfterFrom([entry('sub_1'), entry('cs_1')], 'sub_1')).toBe(0);
    expect(stateAfterFrom([entry('cs_1')], 'sub_1')).toBe(-1);
  });
});

describe('who did it, in the page\'s words', () => {
  const members = new Map([
    ['mem_ana', { email: 'ana@x.com', role: 'support' }],
    ['mem_gone', null],
  ]);
  test('a member by e-mail and role in words; one no longer in the team by id; the portal and the CLI; nobody named for the API', () => {
    const es = pages.helpers('es-CO').t;
    const en = pages.helpers('en').t;
    expect(actorWords(es, { type: 'dashboard', member: 'mem_ana' }, members)).toBe('por ana@x.com (Soporte)');
    expect(actorWords(en, { type: 'dashboard', member: 'mem_ana' }, members)).toBe('by ana@x.com (Support)');
    expect(actorWords(es, { type: 'dashboard', member: 'mem_gone' }, members)).toBe('por un miembro que ya no está en el equipo (mem_gone)');
    expect(actorWords(es, { type: 'portal' }, members)).toBe('por el cliente, en el portal');
    expect(actorWords(en, { type: 'cli' }, members)).toBe('from the command line');
    expect(actorWords(es, null, members)).toBeNull();
  });
});

describe('the timeline in sentences', () => {
  const members = new Map([['mem_ana', { email: 'ana@x.com', role: 'support' }]]);
  const methods = new Map([['pm_1', { id: 'pm_1', type: 'card', card: { brand: 'visa', last4: '4242' } }]]);
  const price = { currency: 'COP', unit_price: '49900.00', billing_period: 'month', billing_interval: 1, pricing_model: 'standard' };
  const sub = { id: 'sub_1', items: [{ product: { name: 'Plan Pro' }, price, quantity: 1 }], currency: 'COP', billing_period: 'month', billing_interval: 1 };
  const entries: TimelineEntry[] = [
    { type: 'subscription.created', data: { object: sub } },
    { type: 'collection.created', data: { object: { id: 'col_1', total: '49900.00', currency: 'COP' } } },
    { type: 'charge.paid', data: { object: { id: 'ch_1', collection: 'col_1', status: 'succeeded', amount: '49900.00', currency: 'COP', payment_method: null } } },
    { type: 'collection.paid', data: { object: { id: 'col_1', total: '49900.00', currency: 'COP', payment_method: 'pm_1' } } },
    { type: 'subscription.pending_canceled', data: { object: { ...sub, cancel_at: '2026-12-23T10:00:00.000Z' } }, actor: { type: 'dashboard', member: 'mem_ana' } },
    { type: 'subscription.cancellation_withdrawn', data: { object: sub }, actor: { type: 'portal' } },
    { type: 'subscription.canceled', data: { object: sub }, actor: { type: 'dashboard', member: 'mem_ana' } },
    { type: 'subscription.canceled', data: { object: sub } },
    { type: 'subscription.past_due', data: { object: sub } },
    { type: 'collection.created', data: { object: { id: 'col_2', total: '49900.00', currency: 'COP' } } },
    { type: 'subscription.renewed', data: { object: { ...sub, latest_collection: 'col_2' } } },
    { type: 'collection.refunded', data: { object: { id: 'col_1', total: '49900.00', amount_refunded: '10000.00', currency: 'COP' } } },
    { type: 'subscription.paused', data: { object: { ...sub, resumes_at: '2027-01-03T15:00:00.000Z' } } },
    { type: 'charge.failed', data: { object: { id: 'ch_2', amount: '10.50', currency: 'USD', status: 'failed', payment_method: 'pm_1' } } },
    { type: 'coupon.redeemed', data: { object: { id: 'co_1' } } },
  ];

  test('es-CO: amounts in the object\'s currency, the card that paid, a member of the team as the subject, "por …" otherwise, a fallback for a type without words', () => {
    expect(timelineSentences(entries, { t: pages.helpers('es-CO').t, locale: 'es-CO', members, methods })).toEqual([
      { sentence: 'Suscripción creada: Plan Pro · $ 49.900 al mes', by: null },
      { sentence: 'Cobro de $ 49.900 creado', by: null },
      { sentence: 'Cobro de $ 49.900 aprobado con Visa •••• 4242', by: null },
      { sentence: 'Cobro de $ 49.900 pagado', by: null },
      { sentence: 'ana@x.com (Soporte) canceló al final del periodo, el 23 de diciembre de 2026', by: null },
      { sentence: 'Cancelación retirada: la suscripción sigue', by: 'por el cliente, en el portal' },
      { sentence: 'ana@x.com (Soporte) canceló de inmediato', by: null },
      { sentence: 'Suscripción cancelada', by: null },
      { sentence: 'Pago vencido', by: null },
      { sentence: 'Cobro de $ 49.900 creado', by: null },
      { sentence: 'Renovación: cobro de $ 49.900 creado', by: null },
      { sentence: 'Reembolso de $ 10.000', by: null },
      { sentence: 'Suscripción en pausa hasta el 3 de enero de 2027', by: null },
      { sentence: 'Cobro de US$ 10,50 rechazado con Visa •••• 4242', by: null },
      { sentence: 'Evento: coupon.redeemed', by: null },
    ]);
  });

  test('English', () => {
    const en = timelineSentences(entries, { t: pages.helpers('en').t, locale: 'en', members, methods }).map((s) => s.sentence);
    expect(en[0]).toBe('Subscription created: Plan Pro · COP 49,900 a month');
    expect(en[2]).toBe('Payment of COP 49,900 approved with Visa •••• 4242');
    expect(en[4]).toBe('ana@x.com (Support) canceled at the end of the period, on December 23, 2026');
    expect(en[6]).toBe('ana@x.com (Support) canceled immediately');
    expect(en[10]).toBe('Renewal: collection of COP 49,900 created');
    expect(en[11]).toBe('Refund of COP 10,000');
    expect(en[12]).toBe('Subscription paused until January 3, 2027');
    expect(en[14]).toBe('Event: coupon.redeemed');
  });

  test('without what a sentence needs it says less, never a blank: no card known, no renewal collection, no date to resume', () => {
    const t = pages.helpers('es-CO').t;
    const bare: TimelineEntry[] = [
      { type: 'charge.paid', data: { object: { amount: '49900.00', currency: 'COP', status: 'succeeded', collection: 'col_x' } } },
      { type: 'subscription.renewed', data: { object: { ...sub, latest_collection: 'col_x', current_period_end: '2027-01-23T10:00:00.000Z' } } },
      { type: 'subscription.paused', data: { object: { ...sub, resumes_at: null } }, actor: { type: 'dashboard', member: 'mem_ana' } },
    ];
    expect(timelineSentences(bare, { t, locale: 'es-CO', members }).map((s) => s.sentence)).toEqual([
      'Cobro de $ 49.900 aprobado',
      'Renovación: nuevo periodo hasta el 23 de enero de 2027',
      'Suscripción en pausa',
    ]);
    expect(timelineSentences(bare, { t, locale: 'es-CO', members })[2].by).toBe('por ana@x.com (Soporte)');
  });

  test('the payment methods to read: a charge\'s own, else the one its collection was paid with', () => {
    expect(timelineMethodIds(entries)).toEqual(['pm_1']);
    expect(timelineMethodIds([entries[2]])).toEqual([]);
  });
});
