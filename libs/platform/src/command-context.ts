/** Who is asking, on whose behalf, in which mode: travels from the request into every event's metadata. */
export interface CommandContext {
  accountId: string;
  mode: 'test' | 'live';
  requestId: string | null;
  idempotencyKey: string | null;
  /** Id of the event that caused this command, when an event (not a request) caused it. */
  causationId?: string | null;
  correlationId?: string | null;
  /**
   * The time commands on behalf of this context are decided at, when it is not the service clock's:
   * the frozen time of a test clock, or a deadline's time when the scheduler runs it.
   */
  now?: Date;
  /** The test clock the objects concerned live on (test mode only). */
  testClock?: string | null;
  /**
   * Who acted, when not the API caller with a secret key: the customer portal (with the portal
   * session and customer) or the merchant dashboard. Written into each event's metadata as `actor`.
   */
  actor?: { type: 'portal' | 'dashboard'; portal_session?: string; customer?: string } | null;
}

export const isTest = (ctx: Pick<CommandContext, 'mode'>) => ctx.mode === 'test';
