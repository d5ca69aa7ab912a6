import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteReadStore } from '#read-store/sqlite-read-store.js';
import { deliveryLogContract } from './delivery-log.contract.js';

describe('webhook delivery log contract: embedded SQLite', () => {
  deliveryLogContract(async () => new SqliteReadStore(join(mkdtempSync(join(tmpdir(), 'dl-contract-')), 'read.sqlite')));
});
