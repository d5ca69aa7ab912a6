import { MongoClient } from 'mongodb';
import { MongoReadStore } from '../../libs/read-store/src/mongo-read-store.js';
import { readStoreContract } from './read-store.contract.js';

/**
 * Runs the read store contract against a real MongoDB when MONGO_URL is set
 * (e.g. `mongodb://localhost:27017/billing_test`) and the server answers; otherwise the suite is
 * reported as skipped, with the reason in its name.
 */
const TITLE = 'read store contract: MongoDB';
const PROBE_TIMEOUT_MS = 3000;

const url = process.env.MONGO_URL;
const skipReason = url ? await probe(url) : 'MONGO_URL is not set';

if (skipReason === null) {
  describe(TITLE, () => {
    readStoreContract(async () => new MongoReadStore(url!));
  });
} else {
  // Jest's default reporter prints nothing for a file whose tests are all skipped: say why here too.
  process.stderr.write(`\n○ ${TITLE} — skipped: ${skipReason}\n`);
  describe.skip(`${TITLE} — skipped: ${skipReason}`, () => {
    test.skip('the read store contract against a live MongoDB', () => undefined);
  });
}

/** null when the server answers a ping in time, else why not. */
async function probe(connectionString: string): Promise<string | null> {
  let client: MongoClient | undefined;
  try {
    client = new MongoClient(connectionString, {
      serverSelectionTimeoutMS: PROBE_TIMEOUT_MS,
      connectTimeoutMS: PROBE_TIMEOUT_MS,
    });
    await withTimeout(client.db().command({ ping: 1 }), PROBE_TIMEOUT_MS + 500);
    return null;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return `cannot reach ${displayUrl(connectionString)} (${redact(message, connectionString)})`;
  } finally {
    if (client) await withTimeout(client.close(), 1000).catch(() => undefined);
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

/** Scheme, hosts and database only: no user info, no query string. */
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
