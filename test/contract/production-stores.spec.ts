import { productionStoreEnv, withDatabase } from '../support/production-stores.js';

describe('the HTTP harness chooses the stores from EVENTSTORE_URL / MONGO_URL', () => {
  test('unset: the embedded stores (no variables added)', () => {
    expect(productionStoreEnv('/tmp/billing-test-a', {})).toEqual({});
  });

  test('set: EventStoreDB as given, MongoDB in a database of the DATA_DIR\'s own (the same one again on a restart)', () => {
    const env = { EVENTSTORE_URL: 'esdb://localhost:2113?tls=false', MONGO_URL: 'mongodb://u:p@localhost:27017/billing?replicaSet=rs0&directConnection=true' };
    const a = productionStoreEnv('/tmp/billing-test-a', env);
    expect(a.EVENTSTORE_URL).toBe(env.EVENTSTORE_URL);
    expect(a.MONGO_URL).toMatch(/^mongodb:\/\/u:p@localhost:27017\/billing_t[0-9a-f]{12}\?replicaSet=rs0&directConnection=true$/);
    expect(productionStoreEnv('/tmp/billing-test-a', env).MONGO_URL).toBe(a.MONGO_URL);
    expect(productionStoreEnv('/tmp/billing-test-b', env).MONGO_URL).not.toBe(a.MONGO_URL);
  });

  test('a URL without a database path gets one', () => {
    expect(withDatabase('mongodb://localhost:27017', 'x')).toBe('mongodb://localhost:27017/x');
    expect(withDatabase('mongodb+srv://c.example.net/?retryWrites=true', 'x')).toBe('mongodb+srv://c.example.net/x?retryWrites=true');
  });
});
