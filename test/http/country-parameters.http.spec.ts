import { startTestApp, type TestApp } from '../support/test-app.js';

/** Issue 13: the country parameter catalog for Colombia, read-only, and customers validated against it. */
let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account()).test_key;
});
afterAll(() => t.close());

const api = () => t.as(key);
const email = () => `co.${Date.now()}.${Math.random().toString(36).slice(2, 8)}@example.com`;

test('GET /v1/country_parameters/CO: document types, departments, all 1,122 DIVIPOLA municipalities, taxes, retention concepts', async () => {
  const res = await api().get('/v1/country_parameters/CO');
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ object: 'country_parameters', country: 'CO', municipalities_complete: true });
  expect(res.body.municipalities).toHaveLength(1122);
  expect(res.body.municipalities).toContainEqual({ dane_code: '91001', name: 'Leticia', department: '91', kind: 'municipality' });
  expect(res.body.departments).toHaveLength(33);
  expect(res.body.departments).toContainEqual({ dane_code: '76', name: 'Valle del Cauca' });
  expect(res.body.document_types).toContainEqual({ code: 'NIT', dian_code: '31', name: 'NIT' });
  expect(res.body.taxes).toContainEqual(expect.objectContaining({ dian_code: '01', code: 'IVA' }));
  expect(res.body.retention_concepts).toContainEqual(expect.objectContaining({ retention: 'reteiva', rate: '15' }));
  const antioquia = (await api().get('/v1/country_parameters/CO?department=05')).body.municipalities;
  expect(antioquia.every((m: { department: string }) => m.department === '05')).toBe(true);
  expect(antioquia).toContainEqual({ dane_code: '05001', name: 'Medellín', department: '05', kind: 'municipality' });
  expect(antioquia).toHaveLength(125);
  expect((await api().get('/v1/country_parameters/PE')).status).toBe(404);
});

test('customers with a CO billing address: department and city checked, document type a Colombian one; nothing written on refusal', async () => {
  const ok = await api().post('/v1/customers', { email: email(), document_type: 'NIT', document_number: '900123456', billing_address: { address_1: 'Cl 10 # 5-51', city: 'Cali', state: 'Valle', country: 'CO' } });
  expect(ok.status).toBe(200);
  const badState = await api().post('/v1/customers', { email: email(), billing_address: { address_1: 'x', city: 'Cali', state: 'Nowhere', country: 'CO' } });
  expect(badState.status).toBe(400);
  expect(badState.body.error).toMatchObject({ code: 'parameter_invalid', param: 'billing_address[state]' });
  const badCity = await api().post('/v1/customers', { email: email(), billing_address: { address_1: 'x', city: 'Medellín', state: 'Santander', country: 'CO' } });
  expect(badCity.body.error).toMatchObject({ code: 'parameter_invalid', param: 'billing_address[city]' });
  const badDoc = await api().post('/v1/customers', { email: email(), document_type: 'DNI', billing_address: { address_1: 'x', city: 'Cali', state: 'Valle', country: 'CO' } });
  expect(badDoc.body.error).toMatchObject({ code: 'parameter_invalid', param: 'document_type' });
  const abroad = await api().post('/v1/customers', { email: email(), document_type: 'DNI', billing_address: { address_1: 'x', city: 'Lima', state: 'Lima', country: 'PE' } });
  expect(abroad.status).toBe(200);
  // A municipality far from the capitals: Leticia (91001) in Amazonas, refused under another department.
  const leticia = await api().post('/v1/customers', { email: email(), document_type: 'CC', billing_address: { address_1: 'Cra 11 # 8-10', city: 'Leticia', state: 'Amazonas', country: 'CO' } });
  expect(leticia.status).toBe(200);
  const misplaced = await api().post('/v1/customers', { email: email(), document_type: 'CC', billing_address: { address_1: 'x', city: 'Leticia', state: 'Antioquia', country: 'CO' } });
  expect(misplaced.status).toBe(400);
  expect(misplaced.body.error).toMatchObject({ code: 'parameter_invalid', param: 'billing_address[city]' });
  expect(misplaced.body.error.message).toContain('91001');
  const update = await api().post(`/v1/customers/${ok.body.id}/update`, { billing_address: { address_1: 'x', city: 'Pereira', state: 'Caldas', country: 'CO' } });
  expect(update.body.error).toMatchObject({ param: 'billing_address[city]' });
  expect((await api().get(`/v1/customers/${ok.body.id}`)).body.billing_address.city).toBe('Cali');
});
