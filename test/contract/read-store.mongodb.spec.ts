import { MongoClient } from 'mongodb';
import { MongoReadStore } from '../../libs/read-store/src/mongo-read-store.js';
import { readStoreContract } from './read-store.contract.js';
import { gatedSuite, PROBE_TIMEOUT_MS, withTimeout } from './server-gate.js';

/**
 * The read store contract against a real MongoDB when MONGO_URL is set
 * (e.g. `mongodb://localhost:27017/billing_test`) and the server answers a ping; otherwise skipped,
 * with the reason.
 */
await gatedSuite({
  title: 'read store contract: MongoDB',
  envVar: 'MONGO_URL',
  async probe(url) {
    const client = new MongoClient(url, { serverSelectionTimeoutMS: PROBE_TIMEOUT_MS, connectTimeoutMS: PROBE_TIMEOUT_MS });
    try {
      await client.db().command({ ping: 1 });
    } finally {
      await withTimeout(client.close(), 1000).catch(() => undefined);
    }
  },
  suite: (url) =>
    readStoreContract(async () => new MongoReadStore(url), {
      // One transaction per commit on a replica set or sharded cluster; ordered writes on a standalone server.
      atomicCommit: (store) => (store as unknown as { supportsTransactions(): Promise<boolean> }).supportsTransactions(),
    }),
});
