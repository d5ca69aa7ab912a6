import { createHash } from 'node:crypto';
import type { ReadStore } from '#read-store/read-store.port.js';
import type { Clock } from '#shared/clock.js';
import { randomBase62 } from '#shared/ids.js';
import type { MailMessage, MailPort, SentMail } from './mail.port.js';

export const OUTBOX_COLLECTION = 'mail_outbox';

/** A message as the outbox keeps it (and `GET /v1/test_helpers/outbox` shows it). */
export interface OutboxDoc {
  id: string;
  object: 'mail_message';
  to: string;
  subject: string;
  text: string;
  html: string | null;
  kind: string;
  refs: Record<string, string>;
  created_date: string;
  is_test: boolean;
  _account: string;
  _created: string;
  [key: string]: unknown;
}

/**
 * A message's id: random, or — when `refs.event` names the event it tells about — derived from
 * (kind, event), so a message redelivered after a crash replaces itself instead of appearing twice.
 */
export function messageId(message: MailMessage): string {
  const event = message.refs?.event;
  if (!event) return `msg_${randomBase62(24)}`;
  return `msg_${createHash('sha256').update(`${message.kind}\u0000${event}\u0000${message.to}`).digest('base64url').slice(0, 24)}`;
}

/**
 * The embedded default: messages are written durably to the read store (SQLite or MongoDB,
 * collection `mail_outbox`) and never leave the service. Tests and the test-mode endpoint read them.
 */
export class OutboxMail implements MailPort {
  constructor(
    private readonly store: ReadStore,
    private readonly clock: Clock,
  ) {}

  async init(): Promise<void> {
    await this.store.ensureCollections([{ name: OUTBOX_COLLECTION, indexes: [{ fields: ['_account', 'is_test', '_created'] }] }]);
  }

  async send(message: MailMessage): Promise<SentMail> {
    const id = messageId(message);
    const existing = await this.store.get<OutboxDoc>(OUTBOX_COLLECTION, id);
    if (existing) return { id };
    const now = this.clock.now().toISOString();
    const doc: OutboxDoc = {
      id,
      object: 'mail_message',
      to: message.to,
      subject: message.subject,
      text: message.text,
      html: message.html ?? null,
      kind: message.kind,
      refs: { ...(message.refs ?? {}) },
      created_date: now,
      is_test: message.mode === 'test',
      _account: message.accountId,
      // Sort key: the time, then a monotonic counter (messages written at one frozen test-clock instant keep their order).
      _created: `${now}|${process.hrtime.bigint().toString().padStart(24, '0')}`,
    };
    await this.store.commit([{ collection: OUTBOX_COLLECTION, id, doc }]);
    return { id };
  }

  /** Newest first, of one account and mode. */
  async list(accountId: string, mode: 'test' | 'live', filter: { to?: string; kind?: string; limit?: number } = {}): Promise<OutboxDoc[]> {
    const rows = await this.store.find<OutboxDoc>(OUTBOX_COLLECTION, {
      where: { _account: accountId, is_test: mode === 'test' },
      orderBy: { field: '_created', direction: 'desc' },
      limit: 1000,
    });
    return rows
      .filter((r) => (!filter.to || r.to.toLowerCase() === filter.to.toLowerCase()) && (!filter.kind || r.kind === filter.kind))
      .slice(0, filter.limit ?? 100);
  }
}
