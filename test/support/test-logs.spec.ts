import { Logger } from '@nestjs/common';
import { liveLevel, TestLogs } from './test-logs.js';

/** The test logger: errors kept and asserted, the unexpected ones shown, nothing printed otherwise. */
describe('TestLogs', () => {
  const logs = () => {
    const printed: string[] = [];
    return { printed, logs: new TestLogs(null, (text) => void printed.push(text)) };
  };

  test("keeps Nest's error lines (object messages with their fields) and claims the expected ones; nothing is printed", async () => {
    const { logs: l, printed } = logs();
    l.error({ msg: 'unhandled error', reqId: 'req_1', err: 'Error: scheduler down\n    at x' }, 'api');
    l.error('plain text', 'stack line', 'mail');
    l.log('Nest application successfully started', 'NestApplication');
    expect(l.errors().map((e) => e.text)).toEqual(['[api] unhandled error reqId=req_1 err=Error: scheduler down\n    at x', '[mail] plain text stack line']);
    expect(await l.expectError(/scheduler down/)).toHaveLength(1);
    expect(l.errors().map((e) => e.context)).toEqual(['mail']);
    expect(printed).toEqual([]);
  });

  test('expectError fails, naming what was logged instead, when the expected error never came', async () => {
    const { logs: l } = logs();
    l.error({ msg: 'store unavailable', err: 'disk full' }, 'api');
    await expect(l.expectError('scheduler down', { timeoutMs: 50 })).rejects.toThrow(/expected an error log matching scheduler down; logged:\n {2}\[api\] store unavailable err=disk full/);
  });

  test('expectError waits for an error logged a little later (a follower logs after the request answered)', async () => {
    const { logs: l } = logs();
    setTimeout(() => l.error('follower failed; will retry', 'invoicing'), 50);
    expect((await l.expectError('will retry', { timeoutMs: 2000 })).map((e) => e.context)).toEqual(['invoicing']);
  });

  test('an error nobody claimed is shown with the test it happened in; warnings and info are not', () => {
    const { logs: l, printed } = logs();
    l.warn('a store is not answering yet', 'platform');
    l.error({ msg: 'unhandled error', err: 'TypeError: x is undefined' }, 'api');
    l.reportUnexpected('my test');
    expect(printed).toEqual(['\nthe service logged 1 error(s) no test expected (my test):\n  ERROR [api] unhandled error err=TypeError: x is undefined\n']);
    l.reportUnexpected('the next test');
    expect(printed).toHaveLength(1);
  });

  test('TEST_VERBOSE=1 prints errors and warnings as they come; LOG_LEVEL chooses the level', () => {
    expect(liveLevel({})).toBeNull();
    expect(liveLevel({ TEST_VERBOSE: '1' })).toBe('warn');
    expect(liveLevel({ LOG_LEVEL: 'debug' })).toBe('debug');
    const printed: string[] = [];
    const l = new TestLogs(liveLevel({ TEST_VERBOSE: '1' }), (text) => void printed.push(text));
    l.log('started', 'main');
    l.warn('slow', 'platform');
    l.error('broken', 'api');
    expect(printed).toEqual(['WARN [platform] slow\n', 'ERROR [api] broken\n']);
  });

  test("the libraries' static Logger writes to this file's logger once captured", async () => {
    const { captureLogs, testLogs } = await import('./test-logs.js');
    captureLogs();
    new Logger('webhooks').error({ msg: 'delivery failed', endpoint: 'we_1' });
    expect(await testLogs.expectError('delivery failed')).toEqual([expect.objectContaining({ level: 'error', context: 'webhooks', text: '[webhooks] delivery failed endpoint=we_1' })]);
  });
});
