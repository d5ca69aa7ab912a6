import { invoicingApp } from '../support/invoicing-app.js';
import { clockAndCustomer } from '../support/lifecycle.js';

/**
 * Withholding rates in the units Colombia quotes them: ReteICA per thousand (Bogotá's services,
 * 9.66 ‰), ReteIVA and ReteFuente in percent — the same on the collection, the subscription, the
 * account's defaults, the invoice and the country-parameters catalog.
 */
const app = invoicingApp();
const api = app.api;
const NOW = '2026-03-10T12:00:00.000Z';

async function invoicedCollection(unit_price: string, invoice_retentions: Record<string, string>, tax?: string) {
  const { customer } = await clockAndCustomer(api(), NOW);
  const product = (await api().post('/v1/products', { name: 'Servicio', ...(tax ? { invoice_settings: { invoice_tax_id: '01', invoice_tax_percentage: tax } } : {}) })).body;
  const price = (await api().post('/v1/prices', { product_id: product.id, type: 'one_time', unit_price, currency: 'COP' })).body;
  const col = await api().post('/v1/collections', { customer: customer.id, items: [{ price: price.id }], collection_method: 'collect', days_until_due: 10, invoicing: 'create', invoice_retentions });
  expect(col.status).toBe(200);
  expect(col.body.invoice_retentions).toMatchObject(invoice_retentions);
  const invoiceId = (await api().get(`/v1/collections/${col.body.id}`)).body.invoice;
  return (await api().get(`/v1/invoices/${invoiceId}`)).body;
}

test("a collection's ReteICA of 9.66 ‰ on a taxable base of 100,000 COP withholds 966 COP", async () => {
  const invoice = await invoicedCollection('100000', { reteica: '9.66' });
  expect(invoice).toMatchObject({ subtotal: '100000.00', total: '100000.00', retentions: [{ type: 'reteica', rate: '9.66', base: '100000.00', amount: '966.00' }], retention_total: '966.00' });
  // Informative: the customer is asked the collection's total.
  expect(invoice.amount_due).toBe('100000.00');
});

test('a non-round base is withheld to the centavo, half-up: 9.66 ‰ of 100,750 is 973.245 → 973.25; with IVA, on the base and in percent for the others', async () => {
  const plain = await invoicedCollection('100750', { reteica: '9.66' });
  expect(plain.retentions).toEqual([expect.objectContaining({ type: 'reteica', rate: '9.66', base: '100750.00', amount: '973.25' })]);
  // 123,457 with 19 % IVA: base 103,745.38, tax 19,711.62.
  const taxed = await invoicedCollection('123457', { reteica: '9.66', retefte: '2.5' }, '19');
  expect(taxed).toMatchObject({ subtotal: '103745.38', tax_total: '19711.62', total: '123457.00' });
  expect(taxed.retentions).toEqual([
    expect.objectContaining({ type: 'reteica', rate: '9.66', base: '103745.38', amount: '1002.18' }),
    expect.objectContaining({ type: 'retefte', rate: '2.5', base: '103745.38', amount: '2593.63' }),
  ]);
});

test('a rate outside its unit is 400 naming it, nothing written: ReteICA up to 1000 ‰, ReteFuente up to 100 %', async () => {
  const { customer } = await clockAndCustomer(api(), NOW);
  const price = (await api().post('/v1/prices', { product_id: (await api().post('/v1/products', { name: 'S' })).body.id, type: 'one_time', unit_price: '1000', currency: 'COP' })).body;
  const body = { customer: customer.id, items: [{ price: price.id }], collection_method: 'collect', days_until_due: 10 };
  const ica = await api().post('/v1/collections', { ...body, invoice_retentions: { reteica: '1000.01' } });
  expect(ica.status).toBe(400);
  expect(ica.body.error).toMatchObject({ code: 'parameter_invalid', param: 'invoice_retentions[reteica]', message: expect.stringContaining('per thousand (‰)') });
  const fte = await api().post('/v1/collections', { ...body, invoice_retentions: { retefte: '150' } });
  expect(fte.body.error).toMatchObject({ code: 'parameter_invalid', param: 'invoice_retentions[retefte]', message: expect.stringContaining('percent') });
  expect((await api().get(`/v1/collections?customer=${customer.id}`)).body.data).toEqual([]);
});

test("the catalog's Bogotá ReteICA is 9.66 per thousand, ready to be used as a rate", async () => {
  const res = await api().get('/v1/country_parameters/CO');
  expect(res.status).toBe(200);
  expect(res.body.retention_concepts).toContainEqual(expect.objectContaining({ code: 'reteica_bogota_services', retention: 'reteica', rate: '9.66', unit: 'per_mille' }));
  expect(res.body.retention_concepts).toContainEqual(expect.objectContaining({ code: 'reteiva_general', rate: '15', unit: 'percent' }));
});
