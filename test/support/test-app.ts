import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { CommandBus } from '@nestjs/cqrs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createApp } from '#api/create-app.js';
import { CreateAccountCommand, type CreatedAccount } from '#accounts/application/create-account.js';
import { loadConfig } from '#platform/config.js';
import { FixedClock } from '#shared/clock.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { type RunResult, Scheduler } from '#scheduling/scheduler.js';
import { productionStores } from './production-stores.js';
import { type TestLogs, testLogs } from './test-logs.js';

export interface TestApp {
  app: NestFastifyApplication;
  clock: FixedClock;
  dataDir: string;
  /**
   * What the service logged, kept in memory (one per test file, shared by its apps): a test that
   * provokes an error asserts it with `logs.expectError(…)`; an error nobody expects is printed after
   * the test (test/support/test-logs.ts).
   */
  logs: TestLogs;
  /** A new merchant account with its keys. */
  account(name?: string): Promise<CreatedAccount>;
  /** supertest bound to the server, authenticated with `key`. */
  as(key: string): {
    get(path: string): request.Test;
    post(path: string, body?: object, headers?: Record<string, string>): request.Test;
    delete(path: string): request.Test;
  };
  http(): ReturnType<typeof request>;
  /** Runs the real-time deadlines due by the test clock's now (what the worker does each poll). */
  runDue(): Promise<RunResult>;
  close(): Promise<void>;
}

/**
 * The whole service in a fresh temporary DATA_DIR, with a clock that stands still: on the embedded
 * stores, or on EventStoreDB / MongoDB when EVENTSTORE_URL / MONGO_URL are set (the contract suites'
 * variables), each test app with stores of its own there (test/support/production-stores.ts).
 * `embedded: true` keeps the embedded stores whatever is set (tests of the SQLite files themselves).
 */
export async function startTestApp(
  options: { dataDir?: string; now?: Date; scheduler?: boolean; webhooks?: boolean; env?: Record<string, string>; embedded?: boolean } = {},
): Promise<TestApp> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'billing-test-'));
  const clock = new FixedClock(options.now ?? new Date('2026-11-23T10:00:00.000Z'));
  // The deadline worker is off unless asked for: tests move time and run deadlines themselves (runDue).
  // So is webhook delivery unless asked for (`webhooks: true`, with WEBHOOK_* settings in `env`).
  // Rate limits off: tests send bursts on purpose (test/http/operations.http.spec.ts turns them on).
  // The crash-safe invoicing follower too (INVOICING_FOLLOWER=on in `env` for the tests of it): tests see the inline step.
  // No handler timeout either: a long test-clock advance on a loaded machine must not turn into a 503
  // (test/faults/handler-timeout.spec.ts sets one).
  const production = options.embedded ? { env: {} } : await productionStores(dataDir);
  const env = { DATA_DIR: dataDir, SCHEDULER: options.scheduler ? 'on' : 'off', WEBHOOKS: options.webhooks ? 'on' : 'off', RATE_LIMIT_MAX: '0', INVOICING_FOLLOWER: 'off', HANDLER_TIMEOUT_MS: '0', ...production.env, ...options.env };
  const config = { ...loadConfig(env), role: 'all' as const };
  const app = await createApp({
    config,
    clock,
    logger: testLogs,
    ...('eventStore' in production && production.eventStore ? { eventStore: production.eventStore } : {}),
    ...('readStore' in production && production.readStore ? { readStore: production.readStore } : {}),
  });
  const server = app.getHttpServer();
  const auth = (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
  return {
    app,
    clock,
    dataDir,
    logs: testLogs,
    async account(name = 'Test merchant') {
      const created = await app.get(CommandBus).execute<CreateAccountCommand, CreatedAccount>(new CreateAccountCommand(name));
      await app.get(ProjectionEngine).waitFor(created.position);
      return created;
    },
    as(key: string) {
      return {
        get: (path) => request(server).get(path).set('Authorization', auth(key)),
        post: (path, body, headers = {}) => {
          const r = request(server).post(path).set('Authorization', auth(key));
          for (const [k, v] of Object.entries(headers)) r.set(k, v);
          return body === undefined ? r : r.send(body);
        },
        delete: (path) => request(server).delete(path).set('Authorization', auth(key)),
      };
    },
    http: () => request(server),
    runDue: () => app.get(Scheduler).runDue({ clock: null }, clock.now()),
    close: async () => {
      await app.close();
      testLogs.reportUnexpected(typeof expect === 'function' ? expect.getState().currentTestName : undefined);
    },
  };
}
