import { MongoClient } from 'mongodb';
import { gatedSuite, PROBE_TIMEOUT_MS, withTimeout } from '../contract/server-gate.js';

/**
 * A contract suite gated on the MongoDB server MONGO_URL names (test/contract/server-gate.ts): run
 * when the server answers a ping, skipped with the reason when MONGO_URL is unset, failed when it is
 * set but does not answer.
 */
export function mongoGatedSuite(title: string, suite: (url: string) => void): Promise<void> {
  return gatedSuite({
    title,
    envVar: 'MONGO_URL',
    async probe(url) {
      const client = new MongoClient(url, { serverSelectionTimeoutMS: PROBE_TIMEOUT_MS, connectTimeoutMS: PROBE_TIMEOUT_MS });
      try {
        await client.db().command({ ping: 1 });
      } finally {
        await withTimeout(client.close(), 1000).catch(() => undefined);
      }
    },
    suite,
  });
}
