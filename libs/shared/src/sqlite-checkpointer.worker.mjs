// The WAL checkpointer of a SQLite writer thread (sqlite-writer.worker.mjs starts it): its own
// connection on the store's file copies the WAL's committed pages into the database file every
// CHECKPOINT_EVERY_MS with a PASSIVE checkpoint, which never waits for and never blocks a reader or the
// writer. The writer's connection has `wal_autocheckpoint = 0`, so no commit pays for a checkpoint
// (SQLite runs an auto-checkpoint inside the commit that crosses 1,000 WAL pages: a 50–150 ms stall of
// that commit and of every answer waiting for it). The WAL restarts from its beginning at the first
// write after a checkpoint that copied everything, as with auto-checkpoints.
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

const CHECKPOINT_EVERY_MS = 200;
const { file } = workerData;
let db = null;

function checkpoint() {
  try {
    db ??= new Database(file, { fileMustExist: true });
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // A read-only or full disk, or a file not there (yet): the writer reports those; the WAL keeps
    // every commit, so a checkpoint not done loses nothing. Try again at the next tick.
    try {
      db?.close();
    } catch {
      /* already closed */
    }
    db = null;
  }
}

const timer = setInterval(checkpoint, CHECKPOINT_EVERY_MS);
parentPort.on('message', (op) => {
  if (op !== 'close') return;
  clearInterval(timer);
  try {
    db?.close();
  } catch {
    /* already closed */
  }
  db = null;
  parentPort.close();
});
