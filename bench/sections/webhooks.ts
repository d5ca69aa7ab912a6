import { CommandBus } from '@nestjs/cqrs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { CreateAccountCommand, type CreatedAccount } from '#accounts/application/create-account.js';
import { createApp } from '#api/create-app.js';
import { loadConfig } from '#platform/config.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { WebhookDispatcher } from '#webhooks/application/webhook-dispatcher.js';
import { bounded } from '../support/concurrency.js';
import { fmt } from '../support/format.js';
import type { Section } from '../support/section.js';
import { benchDir } from '../support/workdir.js';

/**
 * 7. Webhooks: deliveries per second to a local receiver answering 200 at once (BENCH_WEBHOOK_EVENTS,
 *    default 3,000, already in the store; one endpoint and ten), against the feed's own read of the
 *    same events (GET /v1/events pages) in the same run; then append-to-receipt latency p50/p99
 *    under a steady 200 events/s for BENCH_WEBHOOK_SECONDS (default 10).
 */
const WEBHOOK_EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 3000);
const WEBHOOK_SECONDS = Number(process.env.BENCH_WEBHOOK_SECONDS ?? 10);

/** A receiver on 127.0.0.1 that answers 200 at once and reports each body to `onBody`. */
async function benchReceiver(onBody: (body: string) => void): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200).end();
      onBody(Buffer.concat(chunks).toString('utf8'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks`, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) };
}

async function webhookApp(name: string) {
  // WEBHOOKS=off: the dispatcher is started by hand once the events are in the store.
  const config = { ...loadConfig({ DATA_DIR: join(benchDir(), name), SCHEDULER: 'off', WEBHOOKS: 'off', LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '0' }), role: 'all' as const };
  const app = await createApp({ config });
  const account = await app.get(CommandBus).execute<CreateAccountCommand, CreatedAccount>(new CreateAccountCommand(`Bench ${name}`));
  await app.get(ProjectionEngine).waitFor(account.position);
  const auth = `Basic ${Buffer.from(`${account.test_key}:`).toString('base64')}`;
  const fastify = app.getHttpAdapter().getInstance();
  const inject = async <T>(method: 'GET' | 'POST', url: string, body?: object): Promise<T> => {
    const res = await fastify.inject({ method, url, headers: { authorization: auth, 'content-type': 'application/json' }, payload: body ? JSON.stringify(body) : undefined });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return JSON.parse(res.body) as T;
  };
  return { app, inject, dispatcher: app.get(WebhookDispatcher) };
}

async function deliveryThroughput(endpoints: number): Promise<{ perSecond: number; feedPerSecond: number }> {
  const { app, inject, dispatcher } = await webhookApp(`webhooks-${endpoints}`);
  let received = 0;
  const receiver = await benchReceiver(() => received++);
  try {
    for (let i = 0; i < endpoints; i++) await inject('POST', '/v1/webhook_endpoints', { url: receiver.url, enabled_events: ['product.*'] });
    await bounded(Array.from({ length: WEBHOOK_EVENTS }, (_, i) => i), 16, async (i) => {
      await inject('POST', '/v1/products', { name: `Webhook bench ${i}` });
    });
    // The baseline: the feed's own read of the same events, page by page.
    const feedStarted = performance.now();
    let read = 0;
    let cursor = '';
    for (;;) {
      const page = await inject<{ data: { id: string }[]; has_more: boolean }>('GET', `/v1/events?limit=100&type=product.created${cursor ? `&starting_after=${cursor}` : ''}`);
      read += page.data.length;
      if (!page.has_more) break;
      cursor = page.data[page.data.length - 1].id;
    }
    const feedPerSecond = read / ((performance.now() - feedStarted) / 1000);
    const started = performance.now();
    dispatcher.start();
    const expected = WEBHOOK_EVENTS * endpoints;
    while (received < expected) await new Promise((r) => setTimeout(r, 5));
    const perSecond = expected / ((performance.now() - started) / 1000);
    return { perSecond, feedPerSecond };
  } finally {
    await dispatcher.stop();
    await receiver.close();
    await app.close();
  }
}

async function webhooksBench() {
  console.log(`\n7. Webhooks: ${fmt(WEBHOOK_EVENTS)} product.created events already in the store, delivered to a local receiver answering 200 at once (in-process, embedded stores)`);
  for (const endpoints of [1, 10]) {
    const { perSecond, feedPerSecond } = await deliveryThroughput(endpoints);
    console.log(
      `   ${endpoints === 1 ? 'one endpoint ' : 'ten endpoints'}: ${fmt(perSecond)} deliveries/s (signed POST, attempt recorded) vs the feed's own read of the same events ${fmt(feedPerSecond)} events/s (GET /v1/events pages): ratio ${(perSecond / feedPerSecond).toFixed(2)}`,
    );
  }
  // Latency: a steady 200 events/s, each event's product named by its number; receipt − append start.
  const { app, inject, dispatcher } = await webhookApp('webhooks-latency');
  const sentAt: number[] = [];
  const latencies: number[] = [];
  const receiver = await benchReceiver((body) => {
    const n = Number(/"name":"Latency (\d+)"/.exec(body)?.[1]);
    if (Number.isInteger(n) && sentAt[n] !== undefined) latencies.push(performance.now() - sentAt[n]);
  });
  try {
    await inject('POST', '/v1/webhook_endpoints', { url: receiver.url, enabled_events: ['product.*'] });
    dispatcher.start();
    const total = 200 * WEBHOOK_SECONDS;
    const t0 = performance.now();
    const inflight: Promise<unknown>[] = [];
    for (let i = 0; i < total; i++) {
      const wait = t0 + i * 5 - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      sentAt[i] = performance.now();
      inflight.push(inject('POST', '/v1/products', { name: `Latency ${i}` }));
    }
    await Promise.all(inflight);
    const offered = total / ((performance.now() - t0) / 1000);
    const deadline = performance.now() + 30_000;
    while (latencies.length < total && performance.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    latencies.sort((a, b) => a - b);
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
    console.log(
      `   append-to-receipt under ${fmt(offered)} events/s offered for ${WEBHOOK_SECONDS} s (one endpoint): p50 ${pct(50).toFixed(1)} ms, p99 ${pct(99).toFixed(1)} ms (${fmt(latencies.length)}/${fmt(total)} received)`,
    );
  } finally {
    await dispatcher.stop();
    await receiver.close();
    await app.close();
  }
}

export const webhooks: Section = { name: 'webhooks', run: webhooksBench };
