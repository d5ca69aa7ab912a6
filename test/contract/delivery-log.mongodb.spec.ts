import { MongoClient } from 'mongodb';
import { MongoReadStore } from '../../libs/read-store/src/mongo-read-store.js';
import { deliveryLogContract } from './delivery-log.contract.js';
import { gatedSuite, PROBE_TIMEOUT_MS, withTimeout } from './server-gate.js';

/** The webhook delivery log contract on MongoDB when MONGO_URL is set and answers; otherwise skipped, with the reason. */
await gatedSuite({
  title: 'webhook delivery log contract: MongoDB',
  envVar: 'MONGO_URL',
  async probe(url) {
    const client = new MongoClient(url, { serverSelectionTimeoutMS: PROBE_TIMEOUT_MS, connectTimeoutMS: PROBE_TIMEOUT_MS });
    try {
      await client.db().command({ ping: 1 });
    } finally {
      await withTimeout(client.close(), 1000).catch(() => undefined);
    }
  },
  suite: (url) => deliveryLogContract(async () => new MongoReadStore(url)),
});
