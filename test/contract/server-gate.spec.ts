import { gateDecision } from './server-gate.js';

describe('contract suite gate', () => {
  test('an unset URL skips the suite', async () => {
    expect(await gateDecision(undefined, 'MONGO_URL', async () => undefined)).toEqual({ kind: 'skip', reason: 'MONGO_URL is not set' });
    expect((await gateDecision('', 'MONGO_URL', async () => undefined)).kind).toBe('skip');
  });

  test('a set URL whose server answers runs the suite', async () => {
    expect(await gateDecision('mongodb://localhost:27017/x', 'MONGO_URL', async () => undefined)).toEqual({ kind: 'run' });
  });

  test('a set URL whose server cannot be reached fails the suite, without credentials in the reason', async () => {
    const decision = await gateDecision('mongodb://user:secret@db.invalid:27017/x', 'MONGO_URL', async () => {
      throw new Error('connect ECONNREFUSED mongodb://user:secret@db.invalid:27017');
    });
    expect(decision.kind).toBe('fail');
    expect((decision as { reason: string }).reason).toContain('mongodb://db.invalid:27017/x');
    expect((decision as { reason: string }).reason).not.toContain('secret');
  });
});
