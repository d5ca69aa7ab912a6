import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteReadStore } from '../../libs/read-store/src/sqlite-read-store.js';
import { readStoreContract } from './read-store.contract.js';

describe('read store contract: embedded SQLite', () => {
  readStoreContract(async () => new SqliteReadStore(join(mkdtempSync(join(tmpdir(), 'rs-contract-')), 'read.sqlite')));
});
