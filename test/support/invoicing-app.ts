import { startTestApp, type TestApp } from './test-app.js';

/** The date `days` days after `now` (ISO 8601). */
export const daysAfter = (now: string, days: number) => new Date(Date.parse(now) + days * 86_400_000).toISOString();

/**
 * The set-up of the invoice HTTP specs: one test app for the file (started in `beforeAll`, closed in
 * `afterAll`) and one account on it, with invoicing turned on unless `invoicing: false`. Read `t`,
 * `accountId` and `api()` inside tests and hooks (they exist once `beforeAll` has run).
 */
export function invoicingApp(options: { invoicing?: boolean; env?: Record<string, string> } = {}) {
  let app: TestApp | undefined;
  let account: { id: string; test_key: string } | undefined;
  beforeAll(async () => {
    app = await startTestApp(options.env ? { env: options.env } : {});
    account = await app.account();
    if (options.invoicing !== false) {
      expect((await app.as(account.test_key).post('/v1/account/invoicing_settings', { enabled: true })).body.enabled).toBe(true);
    }
  });
  afterAll(() => app?.close());
  const started = () => {
    if (!app || !account) throw new Error('the invoicing test app is started in beforeAll');
    return { app, account };
  };
  return {
    get t(): TestApp {
      return started().app;
    },
    get accountId(): string {
      return started().account.id;
    },
    /** supertest as the account's test key. */
    api: () => started().app.as(started().account.test_key),
    /** Uploads an invoice of `customer` due `dueInDays` after `now` (issued 30 days before that), and expects 200. */
    async upload(now: string, customer: string, number: string, dueInDays: number, total: string) {
      const res = await started()
        .app.as(started().account.test_key)
        .post('/v1/invoices', { customer, number, issue_date: daysAfter(now, dueInDays - 30), due_date: daysAfter(now, dueInDays), subtotal: total, tax_total: '0', total });
      expect(res.status).toBe(200);
      return res.body;
    },
  };
}
