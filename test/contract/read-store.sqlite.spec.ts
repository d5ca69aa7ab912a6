import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteReadStore } from '../../libs/read-store/src/sqlite-read-store.js';
import { readStoreContract } from './read-store.contract.js';

const file = join(mkdtempSync(join(tmpdir(), 'rs-contract-')), 'read.sqlite');

describe('read store contract: embedded SQLite', () => {
  // Every call opens the same file: a second instance is what a restarted process opens.
  readStoreContract(async () => new SqliteReadStore(file));
});
