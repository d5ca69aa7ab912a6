import Database from 'better-sqlite3';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Config, eventStoreFile, readStoreFile } from './config.js';

/** What a backup directory holds besides the two store files. */
interface Manifest {
  format: 'billing-backup-1';
  created_at: string;
  files: string[];
  /** Events in the backed-up event store. */
  events: number;
}

const FILES = ['read-models.sqlite', 'events.sqlite'] as const;

function embeddedOnly(config: Config, verb: string): void {
  if (config.eventStoreUrl || config.mongoUrl) {
    throw new Error(`${verb} covers the embedded stores only; back up EventStoreDB and MongoDB with their own tools (EVENTSTORE_URL / MONGO_URL are set)`);
  }
}

/**
 * Copies the embedded stores into `dir` with SQLite's online backup (a consistent snapshot of each
 * file while the service keeps writing). The read models are copied first and the events after, so
 * the events always include everything the read models reflect: on restore the projections simply
 * catch up from their checkpoints.
 */
export async function backupStores(config: Config, dir: string): Promise<Manifest> {
  embeddedOnly(config, 'backup');
  if (!existsSync(eventStoreFile(config))) throw new Error(`no event store in ${config.dataDir}`);
  if (existsSync(dir) && readdirSync(dir).length > 0) throw new Error(`${dir} is not empty: back up into a new directory`);
  mkdirSync(dir, { recursive: true });
  const sources = { 'read-models.sqlite': readStoreFile(config), 'events.sqlite': eventStoreFile(config) };
  for (const name of FILES) {
    if (!existsSync(sources[name])) continue;
    const db = new Database(sources[name], { fileMustExist: true });
    try {
      db.pragma('busy_timeout = 10000');
      await db.backup(join(dir, name));
    } finally {
      db.close();
    }
  }
  const copy = new Database(join(dir, 'events.sqlite'), { readonly: true });
  const { n } = copy.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number };
  copy.close();
  const manifest: Manifest = { format: 'billing-backup-1', created_at: new Date().toISOString(), files: FILES.filter((f) => existsSync(join(dir, f))), events: n };
  writeFileSync(join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** Puts a backup into DATA_DIR, which must hold no stores yet (stop the service; restore into a fresh directory). */
export function restoreStores(config: Config, dir: string): Manifest {
  embeddedOnly(config, 'restore');
  const manifestFile = join(dir, 'manifest.json');
  if (!existsSync(manifestFile)) throw new Error(`${dir} is not a backup (no manifest.json)`);
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest;
  if (manifest.format !== 'billing-backup-1') throw new Error(`${dir}: unknown backup format ${String(manifest.format)}`);
  for (const name of FILES) {
    const target = join(config.dataDir, name);
    if (existsSync(target) && statSync(target).size > 0) throw new Error(`${target} exists: restore into an empty DATA_DIR`);
  }
  mkdirSync(config.dataDir, { recursive: true });
  for (const name of manifest.files) copyFileSync(join(dir, name), join(config.dataDir, name));
  return manifest;
}
