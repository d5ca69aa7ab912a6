import { MongoReadStore } from '#read-store/mongo-read-store.js';
import { mongoGatedSuite } from '../support/mongo-gate.js';
import { readStoreContract } from './read-store.contract.js';

/**
 * The read store contract against a real MongoDB when MONGO_URL is set
 * (e.g. `mongodb://localhost:27017/billing_test`) and the server answers a ping; otherwise skipped,
 * with the reason.
 */
await mongoGatedSuite('read store contract: MongoDB', (url) =>
  readStoreContract(async () => new MongoReadStore(url), {
    // One transaction per commit on a replica set or sharded cluster; ordered writes on a standalone server.
    atomicCommit: (store) => (store as unknown as { supportsTransactions(): Promise<boolean> }).supportsTransactions(),
  }),
);
