import { EnsureDefaultAccount } from '../../libs/accounts/src/application/ensure-default-account.js';
import { ProjectionEngine } from '../../projections/runtime/projection-engine.js';
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
