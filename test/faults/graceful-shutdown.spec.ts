import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { startChild } from '../support/child-service.js';

/** Embedded stores whatever EVENTSTORE_URL / MONGO_URL say: the products are counted in this run's own stores. */
const ENV = { EVENTSTORE_URL: '', MONGO_URL: '', RATE_LIMIT_MAX: '0', SCHEDULER: 'off', WEBHOOKS: 'off', MAIL_FOLLOWER: 'off', LOG_LEVEL: 'warn' };

test('SIGTERM under load: every request the service reads is answered 200 and kept (none refused with 503), and it shuts down cleanly', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'graceful-shutdown-'));
  const service = await startChild(null, dataDir, ENV);
  const key = service.testKey!;
  const headers = { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`, 'content-type': 'application/json' };
  const statuses = new Map<number, number>();
  const created = new Set<string>();
  let terminatedAt = 0;
  let answeredAfter = 0;
  // Once the service has exited, its port is free: another test's service may be given it, and the
  // load's reconnecting clients would be answered by that one (401: another account). Only what
  // arrives before the exit is this service's answer; the load stops there.
  let gone = false;
  let firstOther: { status: number; ms: number; body: string } | null = null;
  // Keep-alive connections, each sending its next request as soon as the last is answered: at the
  // SIGTERM, requests are in flight, and each connection's next one reaches the closing server.
  const load = autocannon({
    url: `${service.url}/v1/products`, method: 'POST', headers, body: JSON.stringify({ name: 'Shutdown' }), connections: 16, duration: 6,
    requests: [
      {
        onResponse: (status: number, body: string) => {
          if (gone) return;
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          // The first answer that is not a 200, when (ms from the SIGTERM) and what: shown if the test fails.
          if (status !== 200 && !firstOther) firstOther = { status, ms: terminatedAt ? Date.now() - terminatedAt : -1, body: body.slice(0, 300) };
          if (status === 200) created.add((JSON.parse(body) as { id: string }).id);
          if (terminatedAt) answeredAfter += 1;
        },
      },
    ],
  });
  await new Promise((resolve) => setTimeout(resolve, 1500));
  terminatedAt = Date.now();
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    service.process.once('exit', (code, signal) => {
      gone = true;
      (load as unknown as { stop(): void }).stop();
      resolve({ code, signal });
    }),
  );
  service.process.kill('SIGTERM');
  // Nest closes the application, then raises the signal again (the process ends by it, not by a crash).
  expect([{ code: null, signal: 'SIGTERM' }, { code: 0, signal: null }]).toContainEqual(await exited);
  await load;
  expect({ statuses: Object.fromEntries(statuses), firstOther }).toEqual({ statuses: { 200: created.size }, firstOther: null });
  expect(created.size).toBeGreaterThan(0);
  expect(answeredAfter).toBeGreaterThan(0);

  // Every product answered 200 is in the stores after a restart.
  const again = await startChild(null, dataDir, ENV);
  try {
    const stored = new Set<string>();
    for (let after = ''; ; ) {
      const page = (await (await fetch(`${again.url}/v1/products?limit=100${after && `&starting_after=${after}`}`, { headers })).json()) as { data: { id: string }[]; has_more: boolean };
      for (const p of page.data) stored.add(p.id);
      if (!page.has_more) break;
      after = page.data[page.data.length - 1].id;
    }
    expect([...created].filter((id) => !stored.has(id))).toEqual([]);
  } finally {
    await again.kill('SIGTERM');
  }
}, 120_000);
