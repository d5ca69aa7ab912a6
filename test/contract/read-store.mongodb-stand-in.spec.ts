import { MongoStandIn, mongoReadStoreOn } from '../support/mongo-stand-in.js';
import { deliveryLogContract } from './delivery-log.contract.js';
import { readStoreContract } from './read-store.contract.js';

/**
 * The MongoDB adapter's own code (queries, write plan, unique-key and storability errors) held to the
 * read-store contract on an in-memory stand-in for its `Db` (test/support/mongo-stand-in.ts): a
 * server without transactions, the weaker case. The real server runs the same contract in
 * read-store.mongodb.spec.ts when MONGO_URL is set.
 */
describe('read store contract: MongoDB adapter on an in-memory stand-in (no transactions)', () => {
  const db = new MongoStandIn();
  readStoreContract(async () => mongoReadStoreOn(db), { atomicCommit: async () => false });
});

describe('webhook delivery log contract: MongoDB adapter on an in-memory stand-in', () => {
  const db = new MongoStandIn();
  deliveryLogContract(async () => mongoReadStoreOn(db));
});
