import { join, resolve } from 'node:path';

export type Role = 'all' | 'api' | 'worker';

/** Service configuration, from the environment. */
export interface Config {
  port: number;
  host: string;
  /**
   * Where a ROLE=worker process answers `/health` and `/health/ready` (HEALTH_PORT, default 3001; only
   * those routes: it serves no API). ROLE=all and api answer them on PORT; null there.
   */
  healthPort?: number | null;
  dataDir: string;
  /** `esdb://…`: when set, EventStoreDB is the event store; otherwise the embedded SQLite one. */
  eventStoreUrl: string | null;
  /** `mongodb://…`: when set, MongoDB holds the read models; otherwise embedded SQLite. */
  mongoUrl: string | null;
  /** Where the embedded stores commit (SQLITE_WRITER): `thread` (default, a writer thread per store) or `inline` (on the event loop). */
  sqliteWriter: 'thread' | 'inline';
  /** Where the projection pipeline runs on the embedded stores' files: a thread of its own (`worker`, default) or the event loop (`inline`). */
  projectionsThread: 'worker' | 'inline';
  /** `all`: API and projectors in one process; `api`: HTTP only; `worker`: projectors only. */
  role: Role;
  checkoutUrl: string;
  portalUrl: string;
  /** Base of the dashboard in links the service sends (invitations, password resets). */
  dashboardUrl: string;
  /** The first owner's e-mail on the first start with empty stores (OWNER_EMAIL); else the invitee gives it. */
  ownerEmail: string | null;
  /** Master key sealing the secrets the service reads back (MASTER_KEY, base64 of 32 bytes); null: `KEYS_DIR/master.key`. */
  masterKey: string | null;
  /** Earlier master keys that still open (MASTER_KEY_PREVIOUS, base64, comma-separated): while a re-wrap runs. */
  masterKeyPrevious?: string | null;
  /** Where the default master key file lives (KEYS_DIR); null: `<DATA_DIR>.keys`, outside the data directory. */
  keysDir?: string | null;
  /**
   * Whose address a request comes from when a proxy stands in front (TRUST_PROXY, Fastify's
   * `trustProxy`): false (default: the socket's), a number of proxy hops, or addresses/CIDRs. The
   * sign-in throttle and the security log use it.
   */
  trustProxy: boolean | number | string;
  logLevel: string;
  /**
   * `/metrics` (no API key): answered only to loopback callers unless METRICS_TOKEN is set, in which case
   * any caller presenting it as `Authorization: Bearer <token>` is answered (and a loopback caller still is).
   */
  metricsToken: string | null;
  /** The name of the account made on the first start with empty stores (ACCOUNT_NAME; customers read it in e-mails and on pages). */
  defaultAccountName: string | null;
  /** Exchange-rate table for the embedded adapter, `FROM:TO=rate,…` (null: the built-in defaults). */
  exchangeRates: string | null;
  /**
   * How far the V8 heap may grow past the live heap before a full collection, in percent
   * (HEAP_GROWING_PERCENT, default 50; 0: V8's own policy, up to 300). See heap-policy.ts.
   */
  heapGrowingPercent?: number;
  /** The deadline worker: on where projectors run unless SCHEDULER=off; polls every SCHEDULER_POLL_MS. */
  scheduler: { enabled: boolean; pollMs: number; usageWaitMs: number };
  /**
   * How long a request holding an Idempotency-Key may go without finishing before a retry with the
   * same key presumes its process stopped and resumes it (IDEMPOTENCY_LEASE_MS, default 30 s).
   */
  idempotencyLeaseMs: number;
  /**
   * The workers' leases (libs/platform/src/leases.ts): each held for LEASE_TTL_MS (default 10 s) and
   * renewed every LEASE_RENEW_MS (default 2 s); a dead worker's units are taken within TTL + RENEW.
   */
  leases?: { ttlMs: number; renewMs: number };
  /** How often records of idempotency keys older than 25 h are deleted (IDEMPOTENCY_PRUNE_MS, default 1 h, 0 = never). */
  idempotencyPruneMs: number;
  /** How often the audit log's heads that moved are signed (AUDIT_SIGN_INTERVAL_MS, default 1 h, 0 = only on demand; docs/audit.md). */
  auditSignIntervalMs: number;
  /**
   * Requests per API key (one account and mode) per window: RATE_LIMIT_MAX (default 100, 0 = off)
   * per RATE_LIMIT_WINDOW_MS (default 1000); 429 with Retry-After beyond it.
   */
  rateLimit: { max: number; windowMs: number };
  /** Time to receive a whole request (REQUEST_TIMEOUT_MS, default 30 s; 408 after it) and largest body (BODY_LIMIT_BYTES, default 1 MiB; 413). */
  requestTimeoutMs: number;
  bodyLimitBytes: number;
  /** Time to answer a received `/v1` request (HANDLER_TIMEOUT_MS, default 30 s, 0 = off; 503 `handler_timeout` after it, the work goes on). */
  handlerTimeoutMs: number;
  /** How long start-up keeps retrying a store that does not answer (STARTUP_RETRY_MS, default 60 s). */
  startupRetryMs: number;
  /** E-mail to customers: the embedded outbox unless SMTP_URL is set; the collection mail follower unless MAIL_FOLLOWER=off. */
  mail: { smtpUrl: string | null; from: string; follower: boolean };
  /** Webhook delivery (libs/webhooks): on where projectors run unless WEBHOOKS=off. */
  webhooks: WebhookConfig;
  /**
   * Crash-safe invoicing (libs/invoicing, InvoicingFollower): the follower of collection events runs
   * where projectors run unless INVOICING_FOLLOWER=off; it acts on an event INVOICING_FOLLOWER_GRACE_MS
   * (default 2000) after it first saw it, leaving the request's inline step its time.
   */
  invoicing: { follower: boolean; graceMs: number; pollMs: number };
}

export interface WebhookConfig {
  enabled: boolean;
  /** An attempt succeeds with a 2xx answer within this time (WEBHOOK_TIMEOUT_MS, default 10 s). */
  timeoutMs: number;
  /** How often each endpoint's follower looks at the feed when nothing woke it (WEBHOOK_POLL_MS, default 250). */
  pollMs: number;
  /** Requests in flight per endpoint (WEBHOOK_CONCURRENCY, default 10): also the duplicate bound after a crash. */
  concurrency: number;
  /** Multiplies the retry schedule's delays (WEBHOOK_RETRY_SCALE, default 1; tests shrink three days to seconds). */
  retryScale: number;
  /** Delivery attempts are kept this long, then pruned (WEBHOOK_RETENTION_DAYS, default 30). */
  retentionDays: number;
  /** Events per second a replay (POST /v1/webhook_endpoints/{id}/replays) sends to its endpoint at most (WEBHOOK_REPLAY_RATE, default 20). */
  replayRate: number;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const role = (env.ROLE ?? 'all') as Role;
  if (!['all', 'api', 'worker'].includes(role)) throw new Error(`ROLE must be all, api or worker (got ${role})`);
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number (got ${env.PORT})`);
  return {
    port,
    healthPort: role === 'worker' ? portNumber(env.HEALTH_PORT, 3001, 'HEALTH_PORT') : null,
    host: env.HOST ?? '0.0.0.0',
    dataDir: resolve(env.DATA_DIR ?? './data'),
    eventStoreUrl: env.EVENTSTORE_URL || null,
    mongoUrl: env.MONGO_URL || null,
    sqliteWriter: sqliteWriter(env.SQLITE_WRITER),
    projectionsThread: projectionsThread(env.PROJECTIONS_THREAD),
    role,
    checkoutUrl: (env.CHECKOUT_URL ?? `http://localhost:${port}/checkout`).replace(/\/$/, ''),
    portalUrl: (env.PORTAL_URL ?? `http://localhost:${port}/portal`).replace(/\/$/, ''),
    dashboardUrl: (env.DASHBOARD_URL ?? `http://localhost:${port}/dashboard`).replace(/\/$/, ''),
    ownerEmail: env.OWNER_EMAIL?.trim() || null,
    masterKey: env.MASTER_KEY || null,
    masterKeyPrevious: env.MASTER_KEY_PREVIOUS || null,
    keysDir: env.KEYS_DIR ? resolve(env.KEYS_DIR) : null,
    trustProxy: trustProxy(env.TRUST_PROXY),
    logLevel: env.LOG_LEVEL ?? 'info',
    metricsToken: env.METRICS_TOKEN || null,
    defaultAccountName: env.ACCOUNT_NAME?.trim() || null,
    exchangeRates: env.EXCHANGE_RATES || null,
    heapGrowingPercent: positiveInt(env.HEAP_GROWING_PERCENT, 50, 'HEAP_GROWING_PERCENT'),
    scheduler: {
      enabled: env.SCHEDULER !== 'off',
      pollMs: positiveInt(env.SCHEDULER_POLL_MS, 1000, 'SCHEDULER_POLL_MS'),
      usageWaitMs: positiveInt(env.USAGE_WAIT_MS, 300_000, 'USAGE_WAIT_MS'),
    },
    idempotencyLeaseMs: positiveInt(env.IDEMPOTENCY_LEASE_MS, 30_000, 'IDEMPOTENCY_LEASE_MS'),
    leases: { ttlMs: positiveInt(env.LEASE_TTL_MS, 10_000, 'LEASE_TTL_MS') || 10_000, renewMs: positiveInt(env.LEASE_RENEW_MS, 2000, 'LEASE_RENEW_MS') || 2000 },
    idempotencyPruneMs: positiveInt(env.IDEMPOTENCY_PRUNE_MS, 3_600_000, 'IDEMPOTENCY_PRUNE_MS'),
    auditSignIntervalMs: positiveInt(env.AUDIT_SIGN_INTERVAL_MS, 3_600_000, 'AUDIT_SIGN_INTERVAL_MS'),
    rateLimit: { max: positiveInt(env.RATE_LIMIT_MAX, 100, 'RATE_LIMIT_MAX'), windowMs: positiveInt(env.RATE_LIMIT_WINDOW_MS, 1000, 'RATE_LIMIT_WINDOW_MS') },
    requestTimeoutMs: positiveInt(env.REQUEST_TIMEOUT_MS, 30_000, 'REQUEST_TIMEOUT_MS'),
    bodyLimitBytes: positiveInt(env.BODY_LIMIT_BYTES, 1024 * 1024, 'BODY_LIMIT_BYTES'),
    handlerTimeoutMs: positiveInt(env.HANDLER_TIMEOUT_MS, 30_000, 'HANDLER_TIMEOUT_MS'),
    startupRetryMs: positiveInt(env.STARTUP_RETRY_MS, 60_000, 'STARTUP_RETRY_MS'),
    mail: { smtpUrl: env.SMTP_URL || null, from: env.MAIL_FROM || 'Pagos <no-reply@localhost>', follower: env.MAIL_FOLLOWER !== 'off' },
    webhooks: {
      enabled: env.WEBHOOKS !== 'off',
      timeoutMs: positiveInt(env.WEBHOOK_TIMEOUT_MS, 10_000, 'WEBHOOK_TIMEOUT_MS') || 10_000,
      pollMs: positiveInt(env.WEBHOOK_POLL_MS, 250, 'WEBHOOK_POLL_MS') || 250,
      concurrency: Math.max(1, positiveInt(env.WEBHOOK_CONCURRENCY, 10, 'WEBHOOK_CONCURRENCY')),
      retryScale: positiveNumber(env.WEBHOOK_RETRY_SCALE, 1, 'WEBHOOK_RETRY_SCALE'),
      retentionDays: positiveNumber(env.WEBHOOK_RETENTION_DAYS, 30, 'WEBHOOK_RETENTION_DAYS'),
      replayRate: positiveNumber(env.WEBHOOK_REPLAY_RATE, 20, 'WEBHOOK_REPLAY_RATE') || 20,
    },
    invoicing: {
      follower: env.INVOICING_FOLLOWER !== 'off',
      graceMs: positiveInt(env.INVOICING_FOLLOWER_GRACE_MS, 2000, 'INVOICING_FOLLOWER_GRACE_MS'),
      pollMs: positiveInt(env.INVOICING_FOLLOWER_POLL_MS, 1000, 'INVOICING_FOLLOWER_POLL_MS') || 1000,
    },
  };
}

function sqliteWriter(value: string | undefined): 'thread' | 'inline' {
  if (value === undefined || value === '') return 'thread';
  if (value !== 'thread' && value !== 'inline') throw new Error(`SQLITE_WRITER must be thread or inline (got ${value})`);
  return value;
}

function projectionsThread(value: string | undefined): 'worker' | 'inline' {
  if (value === undefined || value === '') return 'worker';
  if (value !== 'worker' && value !== 'inline') throw new Error(`PROJECTIONS_THREAD must be worker or inline (got ${value})`);
  return value;
}

function portNumber(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${name} must be a port number (got ${value})`);
  return n;
}

function positiveInt(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number (got ${value})`);
  return n;
}

function positiveNumber(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number (got ${value})`);
  return n;
}

export const eventStoreFile = (config: Config) => join(config.dataDir, 'events.sqlite');
export const readStoreFile = (config: Config) => join(config.dataDir, 'read-models.sqlite');

/** A URL without its user and password, for logs. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

/** TRUST_PROXY: unset or `false` → false; `true` → every hop (only behind a proxy that overwrites X-Forwarded-For); digits → that many hops; else addresses. */
function trustProxy(value: string | undefined): boolean | number | string {
  const v = (value ?? '').trim();
  if (v === '' || v === 'false') return false;
  if (v === 'true') return true;
  if (/^\d+$/.test(v)) return Number(v);
  return v;
}
