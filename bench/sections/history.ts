import { CommandBus } from '@nestjs/cqrs';
import { join } from 'node:path';
import { CreateAccountCommand, type CreatedAccount } from '#accounts/application/create-account.js';
import { createApp } from '#api/create-app.js';
import type { EventStore } from '#event-store/event-store.port.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { loadConfig } from '#platform/config.js';
import { EVENT_STORE } from '#platform/tokens.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { Scheduler } from '#scheduling/scheduler.js';
import { FixedClock } from '#shared/clock.js';
import { type CreateSubscriptionBody, CreateSubscriptionCommand } from '#subscriptions/application/create-subscription.js';
import { UpdateSubscriptionCommand } from '#subscriptions/application/update-subscription.js';
import { fmt } from '../support/format.js';
import type { Section } from '../support/section.js';
import { target } from '../support/targets.js';
import { benchDir } from '../support/workdir.js';

const HISTORY_MONTHS = Number(process.env.BENCH_HISTORY_MONTHS ?? 120);

/**
 * Deciding on an old subscription costs what it costs on a new one: a `charge` subscription renewed
 * monthly for BENCH_HISTORY_MONTHS (default 120, ten years) by the scheduler, against one created
 * today; the same command (an update of meta_data) timed on each, with this process's memory of the
 * streams dropped before each command (cold: read from the latest snapshot) and kept (warm).
 */
async function historyBench() {
  const months = HISTORY_MONTHS;
  console.log(`\n8. Deciding on a subscription with ${months} months of history vs a new one (in-process, embedded stores)`);
  const start = new Date('2016-01-15T10:00:00.000Z');
  const clock = new FixedClock(start);
  const config = { ...loadConfig({ DATA_DIR: join(benchDir(), 'history'), SCHEDULER: 'off', LOG_LEVEL: 'warn' }), role: 'all' as const };
  const app = await createApp({ config, clock });
  try {
    const engine = app.get(ProjectionEngine);
    const bus = app.get(CommandBus);
    const events = app.get<EventStore>(EVENT_STORE);
    const executor = app.get(AggregateExecutor);
    const scheduler = app.get(Scheduler);
    const fastify = app.getHttpAdapter().getInstance();
    const account = await bus.execute<CreateAccountCommand, CreatedAccount>(new CreateAccountCommand('Bench history'));
    await engine.waitFor(account.position);
    const auth = `Basic ${Buffer.from(`${account.test_key}:`).toString('base64')}`;
    const request = async <T>(method: 'GET' | 'POST', url: string, body?: object): Promise<T> => {
      const res = await fastify.inject({ method, url, headers: { authorization: auth, 'content-type': 'application/json' }, payload: body && JSON.stringify(body) });
      if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
      return JSON.parse(res.body) as T;
    };
    const product = await request<{ id: string }>('POST', '/v1/products', { name: 'Plan History' });
    const price = await request<{ id: string }>('POST', '/v1/prices', {
      product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, currency: 'COP', unit_price: '49900',
    });
    const customer = await request<{ id: string }>('POST', '/v1/customers', { email: 'history@example.com', name: 'History' });
    const method = await request<{ id: string }>('POST', '/v1/payment_methods/migrate', {
      customer: customer.id, gateway: 'gateway_a', type: 'card', token: 'simtok_approve_history',
      card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2099 }, default: true,
    });
    const ctx: CommandContext = { accountId: account.id, mode: 'test', requestId: null, idempotencyKey: null };
    const monthAfter = (d: Date, n: number) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, d.getUTCDate(), d.getUTCHours()));
    const create = async (next: Date) => {
      const body: CreateSubscriptionBody = {
        customer: customer.id, collection_method: 'charge', payment_method: method.id, items: [{ price: price.id }], next_renewal_date: next.toISOString(),
      };
      const created = await bus.execute<CreateSubscriptionCommand, CommandResult>(new CreateSubscriptionCommand(ctx, body, true));
      await engine.waitFor(created.position);
      return created.id;
    };
    const old = await create(monthAfter(start, 1));
    const built = performance.now();
    for (let m = 1; m <= months; m++) {
      const due = monthAfter(start, m);
      clock.set(due);
      await scheduler.runDue({ clock: null }, due);
    }
    const young = await create(monthAfter(clock.now(), 1));
    const oldStream = (await events.readStream(`subscription-${old}`)).length;
    const youngStream = (await events.readStream(`subscription-${young}`)).length;
    const oldDoc = await request<{ status: string; collections_count: number }>('GET', `/v1/subscriptions/${old}`);
    console.log(
      `   history: ${months} monthly renewals by the scheduler in ${((performance.now() - built) / 1000).toFixed(1)} s; the old subscription's stream holds ${fmt(oldStream)} events, the new one's ${fmt(youngStream)}`,
    );
    const ok = oldDoc.status === 'active' && oldDoc.collections_count === months;
    console.log(`   check: the old subscription is active with ${fmt(oldDoc.collections_count)} collections (expected ${fmt(months)}): ${ok ? 'OK' : 'FAILED'}`);
    if (!ok) throw new Error('history: the old subscription was not renewed every month');

    const rounds = 300;
    const time = async (id: string, i: number, cold: boolean) => {
      if (cold) executor.forgetAll();
      const t0 = performance.now();
      await bus.execute(new UpdateSubscriptionCommand(ctx, id, { meta_data: { round: String(i) } }));
      return performance.now() - t0;
    };
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    for (const cold of [true, false]) {
      const o: number[] = [];
      const y: number[] = [];
      for (let i = 0; i < 20; i++) await time(i % 2 ? old : young, i, cold); // warm-up
      for (let i = 0; i < rounds; i++) {
        o.push(await time(old, i, cold));
        y.push(await time(young, i, cold));
      }
      const [mo, my] = [median(o), median(y)];
      const label = cold ? 'cold (memory dropped before each command: latest snapshot + tail)' : 'warm (state kept in memory)';
      console.log(`   ${label}: old ${mo.toFixed(3)} ms, new ${my.toFixed(3)} ms (median of ${rounds})`);
      target(`update on a ${months}-month-old subscription / on a new one, ${cold ? 'cold' : 'warm'}`, mo / my, 1.2, 'lower');
    }
  } finally {
    await app.close();
  }
}

export const history: Section = { name: 'history', run: historyBench };
