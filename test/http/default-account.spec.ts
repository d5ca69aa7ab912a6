import { EnsureDefaultAccount, UNNAMED_ACCOUNT } from '#accounts/application/ensure-default-account.js';
import { loadConfig } from '#platform/config.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { startTestApp } from '../support/test-app.js';

describe('default account', () => {
  test('is created once on the first start with empty stores, even when started twice at once', async () => {
    const t = await startTestApp();
    try {
      const ensure = t.app.get(EnsureDefaultAccount);
      const [a, b] = await Promise.all([ensure.run(), ensure.run()]);
      const created = [a, b].filter((x) => x !== null);
      expect(created).toHaveLength(1);
      await t.app.get(ProjectionEngine).waitFor(created[0]!.position);
      expect((await t.as(created[0]!.test_key).get('/v1/events')).status).toBe(200);
      expect(await ensure.run()).toBeNull();
    } finally {
      await t.close();
    }
  });

  test('takes the name the merchant gave (ACCOUNT_NAME), else a placeholder the start-up text asks to change', async () => {
    const t = await startTestApp();
    try {
      const named = await t.app.get(EnsureDefaultAccount).run('Mi Tienda SAS');
      expect(named!.name).toBe('Mi Tienda SAS');
    } finally {
      await t.close();
    }
    expect(loadConfig({ ACCOUNT_NAME: '  Mi Tienda SAS ' }).defaultAccountName).toBe('Mi Tienda SAS');
    expect(loadConfig({}).defaultAccountName).toBeNull();
    const u = await startTestApp();
    try {
      expect((await u.app.get(EnsureDefaultAccount).run())!.name).toBe(UNNAMED_ACCOUNT);
    } finally {
      await u.close();
    }
  });

  test('is not created when the store already holds events', async () => {
    const t = await startTestApp();
    try {
      await t.account('Existing');
      expect(await t.app.get(EnsureDefaultAccount).run()).toBeNull();
    } finally {
      await t.close();
    }
  });
});
