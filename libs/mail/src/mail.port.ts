/**
 * The mail port: every e-mail the service sends to a customer (collection sent and reminders, sign-in
 * codes of the hosted checkout, portal links) goes through it. The embedded default writes messages to
 * an outbox that tests and a test-mode endpoint read; an SMTP adapter is chosen by configuration.
 */
export interface MailMessage {
  to: string;
  subject: string;
  /** Plain-text body (always sent). */
  text: string;
  /** Optional HTML body. */
  html?: string;
  /** Account and mode the message belongs to (the outbox is read per account and mode). */
  accountId: string;
  mode: 'test' | 'live';
  /** What the message is, e.g. `collection.sent`, `checkout.email_code` (for tests and the outbox). */
  kind: string;
  /** Objects the message is about, e.g. `{ collection: 'col_…' }`. */
  refs?: Record<string, string>;
}

export interface SentMail {
  id: string;
}

export interface MailPort {
  send(message: MailMessage): Promise<SentMail>;
}

/** Nest injection token of the MailPort. */
export const MAIL = Symbol('MAIL');
