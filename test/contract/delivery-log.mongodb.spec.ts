import { MongoReadStore } from '#read-store/mongo-read-store.js';
import { mongoGatedSuite } from '../support/mongo-gate.js';
import { deliveryLogContract } from './delivery-log.contract.js';

/** The webhook delivery log contract on MongoDB when MONGO_URL is set and answers; otherwise skipped, with the reason. */
await mongoGatedSuite('webhook delivery log contract: MongoDB', (url) => deliveryLogContract(async () => new MongoReadStore(url)));
