import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { loadConfig, redactUrl } from '#platform/config.js';
import { EnsureDefaultAccount, UNNAMED_ACCOUNT } from '#accounts/application/ensure-default-account.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { InviteFirstOwner } from '#team/application/invite-first-owner.js';
import { MASTER_KEY_SOURCE } from '#platform/sealing.module.js';
import type { MasterKeySource } from '#shared/sealing.js';
import { SealingError } from '#shared/sealing.js';
import { createApp } from './create-app.js';
import { LeaseManager } from '#platform/leases.js';

/**
 * `npm start`: the whole service in one process (ROLE=all), or only the API (ROLE=api) or only the
 * workers (ROLE=worker). Standard output carries the logs, one JSON line each (pino); what is meant for
 * the person who started the service (the first start's keys, where to go next) is plain text on
 * standard error, never in a log line.
 */
const config = loadConfig();
const say = (lines: string[]) => process.stderr.write(`${lines.join('\n')}\n`);
const app = await createApp({ config, logRequests: true }).catch((error: unknown) => {
  // No master key, or not the one the stored secrets were sealed with: the reason, plainly, and exit.
  if (!(error instanceof SealingError)) throw error;
  say(['', `  The service does not start: ${error.message}`, '']);
  process.exit(78); // EX_CONFIG
});
const log = new Logger('main');
// SIGTERM / SIGINT: app.close() stops accepting, finishes the requests in flight, stops the leased
// units (checkpoints written) and hands their leases back, closes the stores; then exit 0. (Nest's
// enableShutdownHooks does the same close but then re-raises the signal, so the process ended killed
// by SIGTERM, status 143, not the clean exit an orchestrator and the operator expect.)
let closing = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    // A connection whose response was in flight when the close began stays open, idle, for Fastify's
    // keepAliveTimeout (72 s) after it: a drain under load took over a minute (past an orchestrator's
    // grace period, whose SIGKILL leaves the leases to expire). Idle connections are closed as they appear.
    const server = app.getHttpServer() as import('node:http').Server;
    setInterval(() => server.closeIdleConnections?.(), 100).unref();
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ msg: 'shutdown failed', signal, err: String((error as Error)?.stack ?? error) });
        process.exit(1);
      },
    );
  });
}

const created = config.role === 'worker' ? null : await app.get(EnsureDefaultAccount).run(config.defaultAccountName);
const masterKey = app.get<MasterKeySource>(MASTER_KEY_SOURCE);
if (created) {
  // The keys are printed only once they authenticate: the api_keys read model has their account
  // (on a loaded machine the first projection pass can take longer than one 10 s wait).
  while (!(await app.get(ProjectionEngine).waitFor(created.position))) log.log('waiting for the read models to show the new account');
  log.log({ msg: 'default account created', account: created.id });
  const owner = await app.get(InviteFirstOwner).run(created.id, config.ownerEmail);
  while (!(await app.get(ProjectionEngine).waitFor(owner.position))) log.log('waiting for the read models to show the owner\'s invitation');
  // Printed once, on the first start with empty stores: the only time these keys are shown.
  say([
    '',
    `  Created the account ${created.id} (${created.name}). Its secret keys, shown only now:`,
    '',
    `    test: ${created.test_key}`,
    `    live: ${created.live_key}`,
    '',
    `  Try:  curl -u ${created.test_key}: http://localhost:${config.port}/v1/events`,
    '',
    `  The dashboard's first owner${config.ownerEmail ? ` (${config.ownerEmail})` : ''} sets a password with this single-use link (until ${owner.expires_at.slice(0, 10)}):`,
    `    ${owner.url}`,
    '',
    ...(created.name === UNNAMED_ACCOUNT
      ? [
          '  Customers read the account\'s name in e-mails and on payment pages. Give it yours:',
          `    npm run cli -- accounts rename --account ${created.id} --name "Mi Tienda SAS"`,
          '  (or start with ACCOUNT_NAME="Mi Tienda SAS" on empty stores).',
          '',
        ]
      : []),
  ]);
}

if (masterKey.created && masterKey.path) {
  // Made now (first start with no sealed secret): the operator must keep it, apart from the data.
  say([
    `  Secrets (webhook signing secrets, the pages' signing key, two-factor secrets) are sealed with a master key created at ${masterKey.path}.`,
    '  Back it up apart from the data directory (a copy of the data alone opens nothing), or give every process the same MASTER_KEY.',
    '',
  ]);
} else if (masterKey.path && masterKey.path.startsWith(`${config.dataDir}/`)) {
  log.warn({ msg: 'the master key file is inside the data directory: a copy of the data carries its key. Move it to KEYS_DIR (default: the sibling directory <DATA_DIR>.keys) or set MASTER_KEY', path: masterKey.path });
}

const stores = `event store: ${config.eventStoreUrl ? redactUrl(config.eventStoreUrl) : 'embedded'}, read models: ${config.mongoUrl ? redactUrl(config.mongoUrl) : 'embedded'}, data: ${config.dataDir}`;
if (config.role === 'worker') {
  // Its health only (`/health`, `/health/ready`: 503 when it holds nothing it should), on HEALTH_PORT; every other path is 404 (create-app.ts).
  const healthPort = config.healthPort ?? 3001;
  await app.listen({ port: healthPort, host: config.host });
  // The background work it took (its share; libs/platform/src/leases.ts): more as other workers leave, less as they join.
  const leases = app.get(LeaseManager);
  log.log({ msg: 'worker running: it holds its share of the background work by leases', role: config.role, worker: leases.worker, health_port: healthPort, holds: [...leases.held().keys()] });
  say([`  Worker running: ${leases.worker} (${stores}); holds ${[...leases.held().keys()].join(', ') || 'nothing yet'}; health on http://localhost:${healthPort}/health/ready.`]);
} else {
  await app.listen({ port: config.port, host: config.host });
  log.log({ msg: 'listening', port: config.port, host: config.host, role: config.role });
  say([`  Billing service on http://localhost:${config.port}  (API docs: /docs; ${stores})`, '']);
}
