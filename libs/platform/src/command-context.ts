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
   * session and customer), the merchant dashboard (with the member who acted) or the CLI. Written
   * into each event's metadata as `actor`.
   */
  actor?: { type: 'portal' | 'dashboard' | 'cli'; portal_session?: string; customer?: string; member?: string } | null;
  /**
   * The client's address, for the security log: set by the dashboard's team and key actions only (an
   * event about a customer never records where a staff member sat). Written into metadata as `address`.
   */
  address?: string | null;
}

export const isTest = (ctx: Pick<CommandContext, 'mode'>) => ctx.mode === 'test';
