/**
 * Errors that say a store cannot take writes (or cannot be reached) right now, as opposed to a bug or
 * a document it refuses: the disk is full, the data directory or file is read-only, an I/O error, the
 * file cannot be opened. The API answers them with 503 `store_unavailable` (retry later, with the same
 * Idempotency-Key); the projection pipeline retries its batch without counting a failure toward
 * parking, so everything carries on by itself once space or permissions return.
 *
 * SQLite (better-sqlite3) reports them in `code`: SQLITE_FULL, SQLITE_READONLY (and its extended
 * codes, e.g. SQLITE_READONLY_DBMOVED), SQLITE_IOERR_*, SQLITE_CANTOPEN_*; Node's own file errors
 * ENOSPC / EROFS / EDQUOT / EIO likewise, and an embedded store's writer thread that stopped with a
 * write in flight (ERR_SQLITE_WRITER_STOPPED: the next write starts a new one). Causes are followed (`error.cause`).
 */
const SQLITE = /^SQLITE_(FULL|READONLY|IOERR|CANTOPEN)(_|$)/;
const SYSTEM = new Set(['ENOSPC', 'EROFS', 'EDQUOT', 'EIO', 'ERR_SQLITE_WRITER_STOPPED']);

export function isStoreUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (SQLITE.test(code) || SYSTEM.has(code))) return true;
  }
  return false;
}
