import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { csvLine } from '#dashboard/http/csv.js';

/**
 * A report as CSV for finance tools: UTF-8, comma-separated, decimal point, a header line of the
 * API's field names, cells never read as formulas (csvLine); streamed row by row.
 */
export function reportCsv(reply: FastifyReply, filename: string, columns: string[], rows: Iterable<Record<string, unknown>> | AsyncIterable<Record<string, unknown>>) {
  async function* lines() {
    yield csvLine(columns, ',');
    for await (const row of rows as AsyncIterable<Record<string, unknown>>) yield csvLine(columns.map((c) => (row[c] === null || row[c] === undefined ? '' : String(row[c]))), ',');
  }
  reply
    .header('Content-Type', 'text/csv; charset=utf-8')
    .header('Content-Disposition', `attachment; filename="${filename.replace(/[^0-9A-Za-z_.-]/g, '')}"`)
    .header('Cache-Control', 'no-store');
  return reply.send(Readable.from(lines()));
}
