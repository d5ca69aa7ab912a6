import { translator } from '#web/i18n.js';
import { DASHBOARD_MESSAGES } from './dashboard-messages.js';
import { valueLabel } from './dashboard-values.js';

const es = translator('es-CO', DASHBOARD_MESSAGES);
const en = translator('en', DASHBOARD_MESSAGES);

test('a status in words that agree with the resource, in each language', () => {
  expect(valueLabel(es, 'subscriptions', 'status', 'active')).toBe('Activa');
  expect(valueLabel(es, 'products', 'status', 'active')).toBe('Activo');
  expect(valueLabel(es, 'collections', 'status', 'past_due')).toBe('Pago vencido');
  expect(valueLabel(es, 'charges', 'status', 'failed')).toBe('Fallido');
  expect(valueLabel(es, 'subscriptions', 'status', 'past_due')).toBe('Pago vencido');
  expect(valueLabel(en, 'subscriptions', 'status', 'pending_cancel')).toBe('Cancels at period end');
});

test('fields shared by resources, booleans, and values without words', () => {
  expect(valueLabel(es, 'collections', 'collection_method', 'collect')).toBe('Enviar cobro al cliente');
  expect(valueLabel(en, 'prices', 'billing_period', 'year')).toBe('Year');
  expect(valueLabel(es, 'prices', 'active', false)).toBe('No');
  expect(valueLabel(es, 'subscriptions', 'usage_based', true)).toBe('Sí');
  expect(valueLabel(en, 'subscriptions', 'is_test', true)).toBe('Yes');
  // An event's type, a payment method type named after a brand, an unknown status, a field not worded: as the API gives them.
  expect(valueLabel(es, 'events', 'type', 'subscription.created')).toBe('subscription.created');
  expect(valueLabel(es, 'payment_methods', 'type', 'pse')).toBe('pse');
  expect(valueLabel(es, 'subscriptions', 'status', 'something_new')).toBe('something_new');
  expect(valueLabel(es, 'customers', 'name', 'active')).toBe('active');
  expect(valueLabel(es, 'prices', 'type', null)).toBe('');
});

test('every status the dashboard filters by has words in both languages', async () => {
  const { RESOURCES } = await import('./dashboard-resources.js');
  for (const [name, resource] of Object.entries(RESOURCES)) {
    for (const filter of resource.filters) {
      for (const option of filter.options ?? []) {
        for (const t of [es, en]) expect([name, filter.name, option, valueLabel(t, name, filter.name, option) !== option]).toEqual([name, filter.name, option, true]);
      }
    }
  }
});
