import 'reflect-metadata';
import { loadConfig, redactUrl } from '../../../libs/platform/src/config.js';
import { EnsureDefaultAccount } from '../../../libs/accounts/src/application/ensure-default-account.js';
import { ProjectionEngine } from '../../../projections/runtime/projection-engine.js';
import { createApp } from './create-app.js';

/** `npm start`: the whole service in one process (ROLE=all), or only the API (ROLE=api) or only the workers (ROLE=worker). */
const config = loadConfig();
const app = await createApp({ config, logRequests: true });
app.enableShutdownHooks();

const created = config.role === 'worker' ? null : await app.get(EnsureDefaultAccount).run();
if (created) {
  // The keys are printed only once they authenticate: the api_keys read model has their account
  // (on a loaded machine the first projection pass can take longer than one 10 s wait).
  while (!(await app.get(ProjectionEngine).waitFor(created.position))) console.log('waiting for the read models to show the new account…');
  // Printed once, on the first start with empty stores: the only time these keys are shown.
  console.log(
    [
      '',
      `Created the default account ${created.id}. Its secret keys (shown only now):`,
      `  test: ${created.test_key}`,
      `  live: ${created.live_key}`,
      `Try: curl -u ${created.test_key}: http://localhost:${config.port}/v1/events`,
      '',
    ].join('\n'),
  );
}

if (config.role === 'worker') {
  await app.init();
  console.log('worker running: projections follow the event store');
} else {
  await app.listen({ port: config.port, host: config.host });
  console.log(
    `billing service listening on http://localhost:${config.port} (event store: ${config.eventStoreUrl ? redactUrl(config.eventStoreUrl) : 'embedded'}, read models: ${config.mongoUrl ? redactUrl(config.mongoUrl) : 'embedded'}, data: ${config.dataDir}); OpenAPI at /docs`,
  );
}
