import 'reflect-metadata';
import { ApiError } from '#shared/errors.js';
import { type CustomerErasure, EraseCustomerCommand } from '#customers/application/erase-customer.js';
import { NestFactory } from '@nestjs/core';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { AppModule } from '#api/app.module.js';
import { CreateAccountCommand, type CreatedAccount } from '#accounts/application/create-account.js';
import { ConfigureGatewayCommand } from '#accounts/application/configure-gateway.js';
import { GetGatewayQuery } from '#accounts/application/get-gateway.js';
import { type GatewayObject, ListGatewaysQuery } from '#accounts/application/list-gateways.js';
import { RemoveGatewayCommand } from '#accounts/application/remove-gateway.js';
import { GetRetryPolicyQuery, type RetryPolicyObject } from '#accounts/application/get-retry-policy.js';
import { SetRetryPolicyCommand } from '#accounts/application/set-retry-policy.js';
import { RenameAccountCommand } from '#accounts/application/rename-account.js';
import { isMode } from '#accounts/domain/account.decider.js';
import { CreateApiKeyCommand, type CreatedApiKey } from '#accounts/application/create-api-key.js';
import { RollApiKeyCommand, type RolledApiKey } from '#accounts/application/roll-api-key.js';
import { RevokeApiKeyCommand, type RevokedApiKey } from '#accounts/application/revoke-api-key.js';
import { type ApiKeyObject, ListApiKeysQuery } from '#accounts/application/list-api-keys.js';
import { parseApiKey } from '#accounts/domain/api-key.js';
import { GetInvoicingSettingsQuery } from '#invoicing/application/get-invoicing-settings.js';
import { UpdateInvoicingSettingsCommand } from '#invoicing/application/update-invoicing-settings.js';
import type { InvoicingSettingsChanges } from '#invoicing/domain/invoicing-settings.decider.js';
import type { CommandContext } from '#platform/command-context.js';
import type { ListPage } from '#http/list.js';
import { loadConfig } from '#platform/config.js';
import { backupStores, restoreStores } from '#platform/backup.js';
import { readNewMasterKey, secretsRewrap } from './secrets-rewrap.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import type { AccountDoc } from '#accounts/read-models/account.read-model.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { READ_STORE } from '#platform/tokens.js';
import { readLeaseDocs } from '#platform/leases.js';
import { notFound } from '#shared/errors.js';
import { InviteFirstOwner } from '#team/application/invite-first-owner.js';
import { describeVerifyReport, verifyAuditChain } from '#audit/application/verify-chain.js';
import { openAuditStores } from '#audit/application/audit-stores.js';
import { AuditExport } from '#audit/application/audit-export.js';
import { AuditLog } from '#audit/application/audit-log.js';
import { type Invitation, InviteMemberCommand } from '#team/application/invite-member.js';
import type { Role } from '#team/domain/roles.js';
import type { MemberDoc } from '#team/read-models/member.read-model.js';

export const USAGE = `usage:
  npm run cli -- accounts create --name NAME [--owner-email E] [--json]
                                                         create a merchant account; print its keys and the
                                                         first owner's single-use invitation link (7 days)
  npm run cli -- accounts list [--json]                  every account: id, name, created (never the keys)
  npm run cli -- accounts rename --account ACCT --name NAME [--json]
                                                         the name customers read in e-mails and on payment pages
  npm run cli -- accounts gateways list --account ACCT --mode test|live [--json]
                                                         the gateways configured on an account in a mode
  npm run cli -- accounts gateways add --account ACCT --mode test|live --gateway G [--json]
                                                         configure a gateway (gateway_a … gateway_j, offline)
  npm run cli -- accounts gateways remove --account ACCT --mode test|live --gateway G [--json]
                                                         remove a configured gateway
  npm run cli -- accounts retry-policy get --account ACCT [--json]
                                                         the account's dunning policy (both modes)
  npm run cli -- accounts retry-policy set --account ACCT --retry-days 1,3,5 --final-days 7 [--json]
                                                         set it: retries at due + each day (--retry-days ''
                                                         for none), uncollectible at due + final days
  npm run cli -- accounts invoicing get --account ACCT --mode test|live [--json]
                                                         the account's invoicing settings in a mode
  npm run cli -- accounts invoicing set --account ACCT --mode test|live [--enabled true|false] [--prefix FE]
        [--next-number N] [--range-end N|none] [--reteiva R] [--reteica R] [--retefte R] [--json]
                                                         set them: numbering range, default withholding rates
                                                         (reteica per thousand, e.g. 9.66; reteiva, retefte percent)
  npm run cli -- keys list --account ACCT [--json]       the account's API keys, masked (sk_live_…wxyz): kind, mode,
                                                         name, status, created, expires, revoked, last used
  npm run cli -- keys create --account ACCT --mode test|live [--name N]
        [--restricted --permissions subscriptions=read,customers=write] [--json]
                                                         a new secret key, or a restricted key (rk_) with per-resource
                                                         read|write permissions; the key is printed once
  npm run cli -- keys roll --account ACCT --key KEYID [--expires-in now|1h|24h|7d|SECONDS] [--json]
                                                         a new key (printed once) replacing KEYID, which keeps
                                                         working until the expiry (default now, at most 7 days)
  npm run cli -- keys revoke --account ACCT --key KEYID [--json]
                                                         the key answers 401 from its next request
  npm run cli -- members list --account ACCT [--json]   the account's team: e-mail, role, status
  npm run cli -- members invite --account ACCT --email E --role owner|admin|developer|support|analyst|viewer [--json]
                                                         invite a member (e-mailed through the mail port); prints
                                                         the single-use link too
  npm run cli -- customers erase --account ACCT --customer CUS [--json]
                                                         erase the customer's personal data for good (docs/personal-data.md):
                                                         its key destroyed, subscriptions canceled now, payment methods removed
  npm run cli -- projections rebuild [NAME]              drop read models and rebuild them from the first event
  npm run cli -- projections status                      checkpoint of each projection against the head of the store,
                                                         and why a parked projection stopped
  npm run cli -- projections resume NAME                 un-park a projection (the running service retries it)
  npm run cli -- audit verify [--account ACCT] [--trusted-key KEY.pem] [--json]
                                                         recompute every event's hash and each account's chain from the
                                                         store (docs/audit.md): names the first event that does not match
                                                         (or is missing, or unchained); exit code 1 then. Signed heads are
                                                         trusted when signed by the trusted key (default: the first key)
                                                         or a successor it named
  npm run cli -- audit rotate-key [--json]               a new Ed25519 key signs the audit heads from now on; the old key
                                                         signs a statement naming it and is destroyed (docs/audit.md §3)
  npm run cli -- audit export --account ACCT [--customer CUS | --subscription SUB] [--from T|evt_] [--to T|evt_] > FILE.jsonl
                                                         the history as JSON Lines with its chain and a signed head, for
                                                         node scripts/verify-audit-export.mjs FILE.jsonl KEY.pem (docs/audit.md)
  npm run cli -- secrets rewrap --new-master-key-file PATH
                                                         wrap every sealed secret's data key again under the new master
                                                         key (or MASTER_KEY_NEW), while the service runs: first give every
                                                         process MASTER_KEY=<new> MASTER_KEY_PREVIOUS=<old> (docs/secrets.md)
  npm run cli -- backup DIR                              copy the embedded stores into DIR (new or empty), consistent
                                                         while the service runs (SQLite online backup)
  npm run cli -- restore DIR                             put a backup into DATA_DIR, which must hold no stores yet
                                                         (stop the service first; start it afterwards)

Uses the same configuration as the service (DATA_DIR, EVENTSTORE_URL, MONGO_URL). Rebuild while the
service's projectors are stopped (for the embedded default: stop the service first).`;

export interface CliOutput {
  out(line: string): void;
  /** Writes raw text (an export's lines), resolving once it may write more (stdout's backpressure). */
  write?(text: string): Promise<void>;
}

/** The terminal (or the file stdout is sent to). */
const stdoutOutput: CliOutput = {
  out: (line) => console.log(line),
  write: (text) => new Promise<void>((done) => (process.stdout.write(text) ? done() : process.stdout.once('drain', () => done()))),
};

/** io.write, or io.out of the text without its final newline. */
const writeTo = (io: CliOutput) => (text: string): Promise<void> => (io.write ? io.write(text) : (io.out(text.replace(/\n$/, '')), Promise.resolve()));

/** Runs one CLI command; returns the exit code. */
export async function runCli(argv: string[], io: CliOutput = stdoutOutput, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      account: { type: 'string' },
      'owner-email': { type: 'string' },
      email: { type: 'string' },
      role: { type: 'string' },
      mode: { type: 'string' },
      gateway: { type: 'string' },
      'retry-days': { type: 'string' },
      'final-days': { type: 'string' },
      enabled: { type: 'string' },
      prefix: { type: 'string' },
      'next-number': { type: 'string' },
      'range-end': { type: 'string' },
      reteiva: { type: 'string' },
      reteica: { type: 'string' },
      retefte: { type: 'string' },
      key: { type: 'string' },
      customer: { type: 'string' },
      subscription: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      'expires-in': { type: 'string' },
      restricted: { type: 'boolean', default: false },
      permissions: { type: 'string' },
      json: { type: 'boolean', default: false },
      'new-master-key-file': { type: 'string' },
      'trusted-key': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  const [area, action, arg] = positionals;
  if (values.help || !area) {
    io.out(USAGE);
    return values.help ? 0 : 2;
  }
  if (area === 'audit' && action !== 'export' && action !== 'rotate-key') {
    if (action !== 'verify') throw new UsageError(`unknown command: ${positionals.join(' ')}`);
    return auditVerify(loadConfig(env), values.account, values.json, io, values['trusted-key'] ? readFileSync(resolve(values['trusted-key']), 'utf8') : undefined);
  }
  if (area === 'backup' || area === 'restore') {
    if (!action) throw new UsageError(`${area} needs a directory: npm run cli -- ${area} DIR`);
    const config = loadConfig(env);
    const dir = resolve(action);
    const manifest = area === 'backup' ? await backupStores(config, dir) : restoreStores(config, dir);
    io.out(area === 'backup' ? `backed up ${manifest.events} events and the read models into ${dir}` : `restored ${manifest.events} events and the read models from ${dir} into ${config.dataDir}`);
    return 0;
  }
  if (area === 'secrets') {
    if (action !== 'rewrap') throw new UsageError(`unknown command: ${positionals.join(' ')}`);
    return secretsRewrap(loadConfig(env), readNewMasterKey(values['new-master-key-file'], env), (line) => io.out(line));
  }
  // ROLE=api: the CLI does not follow the store; it catches the projections up itself when it needs to.
  const config = { ...loadConfig(env), role: 'api' as const };
  const app = await NestFactory.createApplicationContext(AppModule.forRoot({ config }), { logger: ['error'] });
  const engine = app.get(ProjectionEngine);
  try {
    if (area === 'audit' && action === 'rotate-key') {
      const { previous, current } = await app.get(AuditLog).rotateKey();
      if (values.json) io.out(JSON.stringify({ previous, current }));
      else {
        io.out(`audit signing key rotated: ${current.key_id} signs the heads from ${current.valid_from}; ${previous.key_id} is retired (its private key destroyed, its public key still published)`);
        io.out(`the succession statement, signed by ${previous.key_id}: ${JSON.stringify(current.succession)}`);
      }
      return 0;
    }
    if (area === 'audit' && action === 'export') {
      if (!values.account) throw new UsageError('audit export needs --account ACCT');
      if (values.customer && values.subscription) throw new UsageError('audit export takes --customer or --subscription, not both');
      // The feed says which events are a customer's or a subscription's: caught up first.
      await engine.catchUp();
      const exporter = app.get(AuditExport);
      const scope = values.customer ? { type: 'customer' as const, id: values.customer } : values.subscription ? { type: 'subscription' as const, id: values.subscription } : { type: 'account' as const };
      const prepared = await exporter.prepare(values.account, scope, { from: values.from, to: values.to });
      let failed = false;
      for await (const line of exporter.lines(prepared)) {
        if (line.startsWith('{"kind":"error"')) failed = true;
        await writeTo(io)(`${line}\n`);
      }
      return failed ? 1 : 0;
    }
    if (area === 'customers' && action === 'erase') {
      if (!values.account || !values.customer) throw new UsageError('customers erase needs --account ACCT --customer CUS');
      const erased = await eraseCustomer(app.get(CommandBus), values.account, values.customer);
      if (values.json) io.out(JSON.stringify(erased, null, 2));
      else {
        io.out(`erased ${erased.id} at ${erased.erased_at}: its personal data now reads as placeholders (docs/personal-data.md)`);
        io.out(`subscriptions canceled: ${erased.subscriptions_canceled.join(', ') || 'none'}; payment methods removed: ${erased.payment_methods_removed.join(', ') || 'none'}`);
        if (erased.fiscal_retention.kept) io.out(`kept apart for tax law until ${erased.fiscal_retention.kept_until}: the buyer identification of invoices ${erased.fiscal_retention.invoices.join(', ')} (${erased.fiscal_retention.basis})`);
      }
      return 0;
    }
    if (area === 'accounts' && action === 'create') {
      if (!values.name) throw new UsageError('accounts create needs --name NAME');
      const created = await app.get(CommandBus).execute<CreateAccountCommand, CreatedAccount>(new CreateAccountCommand(values.name));
      await engine.catchUp(); // so the keys authenticate at once, whether or not the service is running
      const owner = await app.get(InviteFirstOwner).run(created.id, values['owner-email'] ?? null);
      await engine.catchUp();
      const out = { id: created.id, name: created.name, test_key: created.test_key, live_key: created.live_key, owner_invitation: { member: owner.member, url: owner.url, expires_at: owner.expires_at } };
      io.out(values.json ? JSON.stringify(out) : `account ${out.id} (${out.name})\n  test key: ${out.test_key}\n  live key: ${out.live_key}\n  owner's invitation (single use, until ${owner.expires_at}): ${owner.url}`);
      return 0;
    }
    if (area === 'keys') {
      if (action !== 'list' && action !== 'create' && action !== 'roll' && action !== 'revoke') throw new UsageError(`unknown command: ${positionals.join(' ')}`);
      if (!values.account) throw new UsageError(`keys ${action} needs --account ACCT`);
      const store = app.get<ReadStore>(READ_STORE);
      await requireAccount(store, engine, values.account);
      const ctx: CommandContext = { accountId: values.account, mode: 'live', requestId: null, idempotencyKey: null, actor: { type: 'cli' } };
      const commands = app.get(CommandBus);
      if (action === 'list') {
        const keys = await app.get(QueryBus).execute<ListApiKeysQuery, ApiKeyObject[]>(new ListApiKeysQuery(values.account));
        if (values.json) io.out(JSON.stringify(keys));
        else for (const k of keys) io.out(describeKey(k));
        return 0;
      }
      if (action === 'create') {
        if (!isMode(values.mode)) throw new UsageError('keys create needs --mode test|live');
        if (values.permissions !== undefined && !values.restricted) throw new UsageError('--permissions is for restricted keys: add --restricted');
        if (values.restricted && values.permissions === undefined) throw new UsageError('keys create --restricted needs --permissions RESOURCE=read|write,…');
        const created = await commands.execute<CreateApiKeyCommand, CreatedApiKey>(
          new CreateApiKeyCommand(ctx, {
            kind: values.restricted ? 'restricted' : 'secret',
            mode: values.mode,
            name: values.name ?? null,
            permissions: values.restricted ? parsePermissions(values.permissions!) : null,
          }),
        );
        await engine.catchUp(); // the key authenticates at once, whether or not the service is running
        const out = { id: created.id, key: created.key, kind: created.kind, mode: created.mode, name: created.name };
        io.out(values.json ? JSON.stringify(out) : `created ${out.kind} key ${out.id} (${out.name}, ${out.mode} mode); shown only now:\n  ${out.key}`);
        return 0;
      }
      if (!values.key) throw new UsageError(`keys ${action} needs --key KEYID`);
      const keyId = parseApiKey(values.key)?.keyId ?? values.key;
      if (action === 'roll') {
        const rolled = await commands.execute<RollApiKeyCommand, RolledApiKey>(new RollApiKeyCommand(ctx, keyId, parseExpiresIn(values['expires-in'])));
        await engine.catchUp();
        const out = { id: rolled.id, key: rolled.key, kind: rolled.kind, mode: rolled.mode, name: rolled.name, rolled: rolled.rolled };
        io.out(values.json ? JSON.stringify(out) : `rolled ${keyId}: it works until ${out.rolled.expires_at}; the new key ${out.id}, shown only now:\n  ${out.key}`);
        return 0;
      }
      const revoked = await commands.execute<RevokeApiKeyCommand, RevokedApiKey>(new RevokeApiKeyCommand(ctx, keyId));
      await engine.catchUp();
      const out = { id: revoked.id, revoked_at: revoked.revoked_at };
      io.out(values.json ? JSON.stringify(out) : `revoked ${out.id} at ${out.revoked_at}`);
      return 0;
    }
    if (area === 'members' && (action === 'list' || action === 'invite')) {
      if (!values.account) throw new UsageError(`members ${action} needs --account ACCT`);
      const store = app.get<ReadStore>(READ_STORE);
      await requireAccount(store, engine, values.account);
      if (action === 'invite') {
        if (!values.email) throw new UsageError('members invite needs --email E');
        if (!values.role) throw new UsageError('members invite needs --role ROLE');
        const invitation = await app.get(CommandBus).execute<InviteMemberCommand, Invitation>(new InviteMemberCommand({ accountId: values.account, member: null, address: null }, values.email, values.role as Role));
        await engine.catchUp();
        const out = { member: invitation.member, email: values.email.trim().toLowerCase(), role: values.role, url: invitation.url, expires_at: invitation.expires_at };
        io.out(values.json ? JSON.stringify(out) : `invited ${out.email} as ${out.role} (${out.member}); single-use link until ${out.expires_at}:\n  ${out.url}`);
        return 0;
      }
      const members = await store.find<MemberDoc>('members', { where: { account_id: values.account }, orderBy: { field: 'invited_at', direction: 'asc' }, limit: 1000 });
      const rows = members.map((m) => ({ id: m.id, email: m.email, role: m.role, status: m.status, two_factor: !!m.totp_credential }));
      if (values.json) io.out(JSON.stringify(rows));
      else if (rows.length === 0) io.out(`no members in ${values.account} yet: npm run cli -- members invite --account ${values.account} --email YOU --role owner`);
      else for (const m of rows) io.out(`${m.id}  ${m.role.padEnd(9)} ${m.status.padEnd(8)} ${m.two_factor ? '2fa' : '   '}  ${m.email ?? '(invitation without e-mail)'}`);
      return 0;
    }
    if (area === 'accounts' && action === 'list') {
      await engine.catchUp();
      const store = app.get<ReadStore>(READ_STORE);
      const accounts: Array<{ id: string; name: string; created: string }> = [];
      let after: { value: string; id: string } | undefined;
      for (;;) {
        const page = await store.find<AccountDoc>('accounts', { orderBy: { field: 'created_date', direction: 'asc' }, after, limit: 500 });
        accounts.push(...page.map((a) => ({ id: a.id, name: a.name, created: a.created_date })));
        if (page.length < 500) break;
        after = { value: page[page.length - 1].created_date, id: page[page.length - 1].id };
      }
      if (values.json) io.out(JSON.stringify(accounts));
      else if (accounts.length === 0) io.out('no accounts yet (the service creates a default one on its first start)');
      else for (const a of accounts) io.out(`${a.id}  ${a.created}  ${a.name}`);
      return 0;
    }
    if (area === 'accounts' && action === 'rename') {
      if (!values.account) throw new UsageError('accounts rename needs --account ACCT');
      if (values.name === undefined) throw new UsageError('accounts rename needs --name NAME');
      const ctx: CommandContext = { accountId: values.account, mode: 'live', requestId: null, idempotencyKey: null };
      await app.get(CommandBus).execute(new RenameAccountCommand(ctx, values.name));
      await engine.catchUp(); // the service's pages and e-mails read the new name at once, running or not
      const doc = await app.get<ReadStore>(READ_STORE).get<AccountDoc>('accounts', values.account);
      const out = { id: values.account, name: doc?.name ?? values.name };
      io.out(values.json ? JSON.stringify(out) : `account ${out.id} is now named ${out.name}`);
      return 0;
    }
    if (area === 'accounts' && action === 'gateways') {
      if (!values.account) throw new UsageError('accounts gateways needs --account ACCT');
      if (!isMode(values.mode)) throw new UsageError('accounts gateways needs --mode test|live');
      const ctx: CommandContext = { accountId: values.account, mode: values.mode, requestId: null, idempotencyKey: null };
      const queries = app.get(QueryBus);
      if (arg !== 'list' && arg !== 'add' && arg !== 'remove') throw new UsageError(`unknown command: ${positionals.join(' ')}`);
      if (arg !== 'list' && !values.gateway) throw new UsageError(`accounts gateways ${arg} needs --gateway G`);
      await requireAccount(app.get<ReadStore>(READ_STORE), engine, ctx.accountId);
      if (arg === 'list') {
        const list = await queries.execute<ListGatewaysQuery, ListPage<GatewayObject>>(new ListGatewaysQuery(ctx));
        if (values.json) io.out(JSON.stringify(list));
        else if (list.data.length === 0) io.out(`no gateways configured on ${ctx.accountId} in ${ctx.mode} mode`);
        else for (const g of list.data) io.out(`${g.id.padEnd(10)} ${g.connector.padEnd(10)} ${g.methods.join(', ') || '(free-form methods)'}`);
        return 0;
      }
      if (arg === 'add' || arg === 'remove') {
        if (!values.gateway) throw new UsageError(`accounts gateways ${arg} needs --gateway G`);
        const command = arg === 'add' ? new ConfigureGatewayCommand(ctx, values.gateway) : new RemoveGatewayCommand(ctx, values.gateway);
        await app.get(CommandBus).execute(command);
        await engine.catchUp(); // the read model answers the service's GET at once, running or not
        if (arg === 'add') {
          const g = await queries.execute<GetGatewayQuery, GatewayObject>(new GetGatewayQuery(ctx, values.gateway));
          io.out(values.json ? JSON.stringify(g) : `configured ${g.id} (${g.connector}) on ${ctx.accountId} in ${ctx.mode} mode`);
        } else {
          const out = { id: values.gateway, object: 'gateway', deleted: true };
          io.out(values.json ? JSON.stringify(out) : `removed ${out.id} from ${ctx.accountId} in ${ctx.mode} mode`);
        }
        return 0;
      }
      throw new UsageError(`unknown command: ${positionals.join(' ')}`);
    }
    if (area === 'accounts' && action === 'retry-policy') {
      if (!values.account) throw new UsageError('accounts retry-policy needs --account ACCT');
      // One policy per account: the mode only names the owner for the read model, it does not matter.
      const ctx: CommandContext = { accountId: values.account, mode: 'test', requestId: null, idempotencyKey: null };
      if (arg === 'set') {
        const retryDays = parseDayList(values['retry-days']);
        const finalDays = parseDays(values['final-days'], '--final-days');
        await app.get(CommandBus).execute(new SetRetryPolicyCommand(ctx, retryDays, finalDays));
      } else if (arg !== 'get') {
        throw new UsageError(`unknown command: ${positionals.join(' ')}`);
      }
      await engine.catchUp(); // the read model answers the service's GET at once, running or not
      const policy = await app.get(QueryBus).execute<GetRetryPolicyQuery, RetryPolicyObject>(new GetRetryPolicyQuery(ctx));
      io.out(values.json ? JSON.stringify(policy) : describeRetryPolicy(ctx.accountId, policy));
      return 0;
    }
    if (area === 'accounts' && action === 'invoicing') {
      if (!values.account) throw new UsageError('accounts invoicing needs --account ACCT');
      if (!values.mode || !isMode(values.mode)) throw new UsageError('accounts invoicing needs --mode test|live');
      const owner = { accountId: values.account, mode: values.mode };
      if (arg !== 'set' && arg !== 'get') throw new UsageError(`unknown command: ${positionals.join(' ')}`);
      await requireAccount(app.get<ReadStore>(READ_STORE), engine, owner.accountId);
      if (arg === 'set') {
        const changes: InvoicingSettingsChanges = {};
        if (values.enabled !== undefined) {
          if (!['true', 'false'].includes(values.enabled)) throw new UsageError('--enabled must be true or false');
          changes.enabled = values.enabled === 'true';
        }
        const numbering: NonNullable<InvoicingSettingsChanges['numbering']> = {};
        if (values.prefix !== undefined) numbering.prefix = values.prefix;
        if (values['next-number'] !== undefined) numbering.next_number = parseDays(values['next-number'], '--next-number');
        if (values['range-end'] !== undefined) numbering.range_end = values['range-end'] === 'none' ? null : parseDays(values['range-end'], '--range-end');
        if (Object.keys(numbering).length > 0) changes.numbering = numbering;
        const rates: Record<string, string | null> = {};
        for (const r of ['reteiva', 'reteica', 'retefte'] as const) if (values[r] !== undefined) rates[r] = values[r] === 'none' ? null : values[r]!;
        if (Object.keys(rates).length > 0) changes.default_retentions = rates;
        await app.get(CommandBus).execute(new UpdateInvoicingSettingsCommand(owner, changes));
      } else if (arg !== 'get') {
        throw new UsageError(`unknown command: ${positionals.join(' ')}`);
      }
      const settings = await app.get(QueryBus).execute(new GetInvoicingSettingsQuery(owner));
      io.out(JSON.stringify(settings, null, values.json ? undefined : 2));
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
      for (const p of await engine.status()) {
        const state = p.parked ? `PARKED at ${p.parked.event_type} ${p.parked.event_id} (${p.parked.position}) after ${p.parked.attempts} attempts: ${p.parked.error}` : p.caught_up ? 'caught up' : 'behind';
        io.out(`${p.name.padEnd(16)} ${p.checkpoint ?? '(empty)'} ${state}`);
      }
      // Which worker holds each unit of background work, and since when (libs/platform/src/leases.ts).
      const { leases, workers } = await readLeaseDocs(app.get<ReadStore>(READ_STORE));
      const now = Date.now();
      io.out('');
      io.out('leases:');
      if (leases.length === 0) io.out('  (none: no worker has run yet)');
      for (const l of leases) {
        const live = l.holder !== null && Date.parse(l.expires_at) > now;
        io.out(`  ${l.id.padEnd(18)} ${live ? `${l.holder} since ${l.since} (epoch ${l.epoch}, until ${l.expires_at})` : `free (epoch ${l.epoch}${l.holder ? `, ${l.holder}'s lapsed at ${l.expires_at}` : ''})`}`);
      }
      const alive = workers.filter((w) => Date.parse(w.expires_at) > now);
      io.out(`workers alive: ${alive.length}`);
      for (const w of alive) io.out(`  ${w.holder} (${w.host ?? '?'} pid ${w.pid ?? '?'}) since ${w.since}`);
      return 0;
    }
    if (area === 'projections' && action === 'resume') {
      if (!arg) throw new UsageError('projections resume needs NAME');
      io.out((await engine.resume(arg)) ? `resumed ${arg}` : `${arg} is not parked`);
      return 0;
    }
    throw new UsageError(`unknown command: ${positionals.join(' ')}`);
  } finally {
    await app.close();
  }
}

export class UsageError extends Error {}

/**
 * An account-scoped command names an account that exists (404 `resource_missing` otherwise): the CLI is
 * the one caller that can name any id, and settings stored for an account nobody has would be kept for
 * nothing. The read model is caught up first, so an account just created by another command is found.
 */
async function requireAccount(store: ReadStore, engine: ProjectionEngine, accountId: string): Promise<void> {
  await engine.catchUp();
  if (!(await store.get<AccountDoc>('accounts', accountId))) throw notFound('account', accountId, 'account');
}

/** `--final-days 7`: a whole number (the account decider checks its range). */
function parseDays(value: string | undefined, flag: string): number {
  if (value === undefined) throw new UsageError(`accounts retry-policy set needs ${flag} N`);
  if (!/^\s*\d+\s*$/.test(value)) throw new UsageError(`${flag} takes a whole number of days, not '${value}'`);
  return Number(value);
}

/** `--retry-days 1,3,5` (or '' / none for no retries): whole numbers (the account decider checks the rules). */
function parseDayList(value: string | undefined): number[] {
  if (value === undefined) throw new UsageError("accounts retry-policy set needs --retry-days D1,D2,… ('' for none)");
  if (value.trim() === '' || value.trim() === 'none') return [];
  return value.split(',').map((part) => parseDays(part, '--retry-days'));
}

/** `--permissions subscriptions=read,customers=write` (the account decider checks resources and values). */
function parsePermissions(value: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of value.split(',').map((p) => p.trim()).filter(Boolean)) {
    const [resource, access, ...rest] = part.split('=').map((p) => p.trim());
    if (!resource || !access || rest.length) throw new UsageError(`--permissions takes RESOURCE=read|write pairs separated by commas, not '${part}'`);
    out[resource] = access;
  }
  return out;
}

/** `--expires-in now | 1h | 24h | 7d | 90m | SECONDS` → seconds (default now; the account decider checks the range). */
function parseExpiresIn(value: string | undefined): number {
  if (value === undefined || value.trim() === 'now') return 0;
  const m = /^\s*(\d+)\s*([smhd]?)\s*$/.exec(value);
  if (!m) throw new UsageError(`--expires-in takes now, a number of seconds or a duration like 1h, 24h, 7d, not '${value}'`);
  return Number(m[1]) * { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2] as '' | 's' | 'm' | 'h' | 'd'];
}

/** `audit verify`: on the stores as they are, read only (no app, no projection, nothing chained at open). */
async function auditVerify(config: ReturnType<typeof loadConfig>, account: string | undefined, json: boolean, io: CliOutput, trustedKeyPem?: string): Promise<number> {
  const stores = await openAuditStores(config, { trustedKeyPem });
  try {
    const report = await verifyAuditChain(stores.events, { account, trustedHeads: await stores.trustedHeads(account) });
    io.out(json ? JSON.stringify(report) : describeVerifyReport(report));
    return report.ok ? 0 : 1;
  } finally {
    await stores.close();
  }
}

function describeKey(k: ApiKeyObject): string {
  const permissions = k.permissions ? `  ${Object.entries(k.permissions).map(([r, a]) => `${r}=${a}`).join(',')}` : '';
  const until = k.status === 'expiring' || k.status === 'expired' ? ` until ${k.expires_at}` : k.status === 'revoked' ? ` at ${k.revoked_at}` : '';
  return `${k.id}  ${k.masked.padEnd(17)} ${k.kind.padEnd(10)} ${k.status}${until}  "${k.name}"  created ${k.created_at ?? '-'}  last used ${k.last_used_at ?? 'never'}${permissions}`;
}

function describeRetryPolicy(accountId: string, policy: RetryPolicyObject): string {
  const retries = policy.retry_days.length ? `retries at due + ${policy.retry_days.join(', ')} days` : 'no retries';
  return `retry policy of ${accountId}: ${retries}; uncollectible at due + ${policy.final_days} days`;
}

/** The customer's erasure in the mode it lives in (its id does not say which): live first, then test. */
async function eraseCustomer(commands: CommandBus, accountId: string, customerId: string): Promise<CustomerErasure> {
  for (const mode of ['live', 'test'] as const) {
    const ctx: CommandContext = { accountId, mode, requestId: null, idempotencyKey: null, actor: { type: 'cli' } };
    try {
      return await commands.execute<EraseCustomerCommand, CustomerErasure>(new EraseCustomerCommand(ctx, customerId, { catchUp: true }));
    } catch (error) {
      if (mode === 'live' && error instanceof ApiError && error.code === 'resource_missing') continue;
      throw error;
    }
  }
  throw new UsageError(`no customer ${customerId} in account ${accountId}`);
}
