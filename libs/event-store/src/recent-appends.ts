/** One event as the embedded store holds it: its row, JSON text included, and its encoded position. */
export interface AppendedRow {
  seq: number;
  event_id: string;
  stream_id: string;
  revision: number;
  type: string;
  data: string;
  metadata: string;
  /** The encoded position (positions.ts). */
  position: string;
}

/**
 * The events this process appended last, in the global order, as the rows the store wrote (the
 * JSON text the append serialised). The projection pipeline and the followers read the log right
 * after each append: a `readAll` whose range starts inside this window is answered from it (parsed
 * anew for each reader, so no two readers share an object) instead of re-reading the rows the
 * writer thread has just committed.
 *
 * Only committed rows enter (after the store acknowledged them), and in the global order: the
 * window is a run of consecutive positions. A read that runs past its end asks the database for the
 * rest, so events another process appended (a position missing here) are read as before. Bounded by
 * count and by the JSON bytes it holds; entries older than `maxAgeMs` are never served (the only
 * rows ever deleted from the log are idempotency records more than a day old, and a deletion in this
 * process empties the window).
 */
export class RecentAppends {
  private readonly rows = new Map<number, { row: AppendedRow; at: number }>();
  private bytes = 0;
  /** The newest seq held (null: empty). */
  private last: number | null = null;

  constructor(
    private readonly maxEvents = 4096,
    private readonly maxBytes = 8 * 1024 * 1024,
    private readonly maxAgeMs = 30_000,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.rows.size;
  }

  /**
   * Rows at `seq`, `seq`+1, …: must follow the last one held (appends are acknowledged in the global
   * order); a row that does not (another process wrote in between) starts the window anew.
   */
  add(row: AppendedRow): void {
    if (this.last !== null && row.seq !== this.last + 1) this.clear();
    this.rows.set(row.seq, { row, at: this.now() });
    this.last = row.seq;
    this.bytes += row.data.length + row.metadata.length;
    while (this.rows.size > this.maxEvents || (this.bytes > this.maxBytes && this.rows.size > 1)) this.dropFirst();
  }

  /** The held rows after `seq` (at most `max`), consecutive from `seq`+1; empty when `seq`+1 is not held. */
  after(seq: number, max: number): AppendedRow[] {
    const out: AppendedRow[] = [];
    const oldest = this.now() - this.maxAgeMs;
    for (let s = seq + 1; out.length < max; s++) {
      const entry = this.rows.get(s);
      if (!entry || entry.at < oldest) break;
      out.push(entry.row);
    }
    return out;
  }

  clear(): void {
    this.rows.clear();
    this.bytes = 0;
    this.last = null;
  }

  /** The oldest row goes (Map keeps insertion order, which is ascending seq). */
  private dropFirst(): void {
    const first = this.rows.keys().next();
    if (first.done) return;
    const entry = this.rows.get(first.value)!;
    this.bytes -= entry.row.data.length + entry.row.metadata.length;
    this.rows.delete(first.value);
  }
}
