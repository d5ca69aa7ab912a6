import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { CommandBus } from '@nestjs/cqrs';
import { parseArgs } from 'node:util';
import { AppModule } from '../../api/src/app.module.js';
import { CreateAccountCommand, type CreatedAccount } from '../../../libs/accounts/src/application/create-account.js';
import { loadConfig } from '../../../libs/platform/src/config.js';
import { ProjectionEngine } from '../../../projections/runtime/projection-engine.js';

export const USAGE = `usage:
  npm run cli -- accounts create --name NAME [--json]   create a merchant account and print its keys
  npm run cli -- projections rebuild [NAME]              drop read models and rebuild them from the first event
  npm run cli -- projections status                      checkpoint of each projection against the head of the store

Uses the same configuration as the service (DATA_DIR, EVENTSTORE_URL, MONGO_URL). Rebuild while the
service's projectors are stopped (for the embedded default: stop the service first).`;

export interface CliOutput {
  out(line: string): void;
}

/** Runs one CLI command; returns the exit code. */
export async function runCli(argv: string[], io: CliOutput = { out: (line) => console.log(line) }, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { name: { type: 'string' }, json: { type: 'boolean', default: false }, help: { type: 'boolean', default: false } },
  });
  const [area, action, arg] = positionals;
  if (values.help || !area) {
    io.out(USAGE);
    return values.help ? 0 : 2;
  }
  // ROLE=api: the CLI does not follow the store; it catches the projections up itself when it needs to.
  const config = { ...loadConfig(env), role: 'api' as const };
  const app = await NestFactory.createApplicationContext(AppModule.forRoot({ config }), { logger: ['error'] });
  const engine = app.get(ProjectionEngine);
  try {
    if (area === 'accounts' && action === 'create') {
      if (!values.name) throw new UsageError('accounts create needs --name NAME');
      const created = await app.get(CommandBus).execute<CreateAccountCommand, CreatedAccount>(new CreateAccountCommand(values.name));
      await engine.catchUp(); // so the keys authenticate at once, whether or not the service is running
      const out = { id: created.id, name: created.name, test_key: created.test_key, live_key: created.live_key };
      io.out(values.json ? JSON.stringify(out) : `account ${out.id} (${out.name})\n  test key: ${out.test_key}\n  live key: ${out.live_key}`);
      return 0;
    }
    if (area === 'projections' && action === 'rebuild') {
      const started = performance.now();
      const done = await engine.rebuild(arg);
      for (const d of done) io.out(`rebuilt ${d.name}: ${d.events} events`);
      io.out(`in ${((performance.now() - started) / 1000).toFixed(2)} s`);
      return 0;
    }
    if (area === 'projections' && action === 'status') {
      const head = await engine.eventStore.headPosition();
      for (const runner of engine.runners) {
        const cp = runner.position;
        io.out(`${runner.projection.name.padEnd(16)} ${cp ?? '(empty)'} ${head === null || (cp !== null && cp >= head) ? 'caught up' : 'behind'}`);
      }
      return 0;
    }
    throw new UsageError(`unknown command: ${positionals.join(' ')}`);
  } finally {
    await app.close();
  }
}

export class UsageError extends Error {}
