import { BACKWARDS, END, EventStoreDBClient } from '@eventstore/db-client';
import { EventStoreDbEventStore } from '../../libs/event-store/src/eventstoredb-event-store.js';
import { eventStoreContract } from './event-store.contract.js';

/**
 * Runs the event store contract against a real EventStoreDB when EVENTSTORE_URL is set
 * (e.g. `esdb://admin:changeit@localhost:2113?tls=false`) and the server answers; otherwise the
 * suite is reported as skipped, with the reason in its name.
 */
const TITLE = 'event store contract: EventStoreDB';
const PROBE_TIMEOUT_MS = 3000;

const url = process.env.EVENTSTORE_URL;
const skipReason = url ? await probe(url) : 'EVENTSTORE_URL is not set';

if (skipReason === null) {
  describe(TITLE, () => {
    eventStoreContract(async () => new EventStoreDbEventStore(url!));
  });
} else {
  // Jest's default reporter prints nothing for a file whose tests are all skipped: say why here too.
  process.stderr.write(`\n○ ${TITLE} — skipped: ${skipReason}\n`);
  describe.skip(`${TITLE} — skipped: ${skipReason}`, () => {
    test.skip('the event store contract against a live EventStoreDB', () => undefined);
  });
}

/** null when the server answers a `$all` read (what the contract needs) in time, else why not. */
async function probe(connectionString: string): Promise<string | null> {
  let client: EventStoreDBClient | undefined;
  try {
    client = EventStoreDBClient.connectionString(connectionString);
    const read = client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1, deadline: PROBE_TIMEOUT_MS });
    await withTimeout(
      (async () => {
        for await (const _ of read) void _;
      })(),
      PROBE_TIMEOUT_MS,
    );
    return null;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return `cannot reach ${displayUrl(connectionString)} (${redact(message, connectionString)})`;
  } finally {
    if (client) await withTimeout(client.dispose(), 1000).catch(() => undefined);
  }
}

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms}ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Scheme and hosts only: no user info, no query string. */
function displayUrl(connectionString: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(connectionString)?.[0] ?? '';
  const main = connectionString.slice(scheme.length).split('?')[0];
  return scheme + main.slice(main.lastIndexOf('@') + 1);
}

function redact(text: string, connectionString: string): string {
  const main = connectionString.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').split('?')[0];
  const userInfo = main.includes('@') ? main.slice(0, main.lastIndexOf('@')) : '';
  let out = text.replace(/(:\/\/)[^\s/?#]*@/g, '$1');
  if (userInfo) out = out.split(userInfo).join('***');
  return out;
}
