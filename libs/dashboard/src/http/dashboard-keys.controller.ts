import { Controller, Get, Param, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '#accounts/http/basic-auth.guard.js';
import { CreateApiKeyCommand, type CreatedApiKey } from '#accounts/application/create-api-key.js';
import { type ApiKeyObject, ListApiKeysQuery } from '#accounts/application/list-api-keys.js';
import { RevokeApiKeyCommand } from '#accounts/application/revoke-api-key.js';
import { RollApiKeyCommand, type RolledApiKey } from '#accounts/application/roll-api-key.js';
import { RESTRICTED_KEY_RESOURCES } from '#accounts/domain/api-key.js';
import type { CommandContext } from '#platform/command-context.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { ApiError } from '#shared/errors.js';
import { CsrfGuard } from '#web/csrf.guard.js';
import { formFields } from '#web/form.js';
import { PageError, PageErrorFilter } from '#web/page-errors.js';
import { apiErrorText } from '#web/api-error-messages.js';
import { addressOf, DashboardPage, type DashboardVisitor } from './dashboard-page.js';

/** How long a rolled key keeps working, as offered (seconds): now, 1 hour, 24 hours, 3 days, 7 days. */
export const ROLL_EXPIRIES = [0, 3600, 86_400, 259_200, 604_800] as const;

/** A key shown once, right after it was made (created or rolled): never stored, never redirected with. */
interface Revealed {
  key: string;
  masked: string;
  name: string;
  rolled?: { masked: string; expires_at: string };
}

/**
 * The API keys page: every key of the account, masked, with its creation, expiry and last use
 * (`keys.read`); creating restricted keys, rolling (the old key works until the expiry chosen) and
 * revoking (`keys.manage`, checked on the server). A new secret is shown once, on the page that answers
 * the form, and nowhere else. Every change is recorded with the member and their address.
 */
@ApiExcludeController()
@Controller('dashboard/keys')
@UseFilters(PageErrorFilter)
@UseGuards(CsrfGuard)
export class DashboardKeysController {
  constructor(
    private readonly page: DashboardPage,
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    private readonly engine: ProjectionEngine,
  ) {}

  @Public()
  @Get()
  async list(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.page.require(request, reply, 'keys.read');
    if (!visitor) return reply;
    const done = (request.query as Record<string, unknown>)?.done;
    return this.keysPage(request, reply, visitor, null, null, typeof done === 'string' && ['revoked'].includes(done) ? done : null, 200);
  }

  @Public()
  @Post()
  async create(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.page.require(request, reply, 'keys.manage');
    if (!visitor) return reply;
    const fields = formFields(request);
    const permissions = Object.fromEntries(RESTRICTED_KEY_RESOURCES.map((r) => [r, fields[`permissions[${r}]`] ?? 'none']).filter(([, v]) => v === 'read' || v === 'write'));
    try {
      const created = await this.commands.execute<CreateApiKeyCommand, CreatedApiKey>(new CreateApiKeyCommand(this.context(visitor, request), { kind: 'restricted', mode: fields.mode === 'live' ? 'live' : 'test', name: fields.name?.trim() || null, permissions }));
      await this.engine.waitFor(created.position);
      return this.keysPage(request, reply, visitor, { key: created.key, masked: created.masked, name: created.name }, null, null, 200);
    } catch (error) {
      return this.refused(request, reply, visitor, error);
    }
  }

  @Public()
  @Post(':key/roll')
  async roll(@Param('key') keyId: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.page.require(request, reply, 'keys.manage');
    if (!visitor) return reply;
    const key = await this.keyOf(visitor, keyId);
    const seconds = Number(formFields(request).expires_in);
    try {
      const rolled = await this.commands.execute<RollApiKeyCommand, RolledApiKey>(new RollApiKeyCommand(this.context(visitor, request), key.id, (ROLL_EXPIRIES as readonly number[]).includes(seconds) ? seconds : Number.NaN));
      await this.engine.waitFor(rolled.position);
      return this.keysPage(request, reply, visitor, { key: rolled.key, masked: rolled.masked, name: rolled.name, rolled: { masked: key.masked, expires_at: rolled.rolled.expires_at } }, null, null, 200);
    } catch (error) {
      return this.refused(request, reply, visitor, error);
    }
  }

  @Public()
  @Post(':key/revoke')
  async revoke(@Param('key') keyId: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.page.require(request, reply, 'keys.manage');
    if (!visitor) return reply;
    const key = await this.keyOf(visitor, keyId);
    try {
      const revoked = await this.commands.execute(new RevokeApiKeyCommand(this.context(visitor, request), key.id));
      await this.engine.waitFor(revoked.position);
      return reply.redirect('/dashboard/keys?done=revoked', 303);
    } catch (error) {
      return this.refused(request, reply, visitor, error);
    }
  }

  private context(visitor: DashboardVisitor, request: FastifyRequest): CommandContext {
    return { ...this.page.contextOf(visitor, request), address: addressOf(request) };
  }

  /** The visitor's account's key, or the 404 page (another account's key is as unknown as a made-up one). */
  private async keyOf(visitor: DashboardVisitor, keyId: string): Promise<ApiKeyObject> {
    const keys = await this.queries.execute<ListApiKeysQuery, ApiKeyObject[]>(new ListApiKeysQuery(visitor.accountId));
    const key = keys.find((k) => k.id === keyId);
    if (!key) throw new PageError(404, 'not_found');
    return key;
  }

  private refused(request: FastifyRequest, reply: FastifyReply, visitor: DashboardVisitor, error: unknown) {
    if (!(error instanceof ApiError) || error.status >= 500) throw error;
    if (error.status === 404) throw new PageError(404, 'not_found');
    const t = this.page.t(request, reply);
    const message = apiErrorText(error, { t, locale: this.page.locale(request, reply), field: (p) => (t(`dash.keys.field.${p}`) !== `dash.keys.field.${p}` ? t(`dash.keys.field.${p}`) : p) });
    return this.keysPage(request, reply, visitor, null, message, null, error.status);
  }

  private async keysPage(request: FastifyRequest, reply: FastifyReply, visitor: DashboardVisitor, revealed: Revealed | null, error: string | null, done: string | null, status: number) {
    const keys = await this.queries.execute<ListApiKeysQuery, ApiKeyObject[]>(new ListApiKeysQuery(visitor.accountId));
    // Newest first; revoked and expired keys after the working ones.
    const rank = (k: ApiKeyObject) => (k.status === 'active' || k.status === 'expiring' ? 0 : 1);
    keys.sort((a, b) => rank(a) - rank(b) || String(b.created_at ?? '').localeCompare(String(a.created_at ?? '')));
    return this.page.send(request, reply, visitor, 'dash-keys', { keys, revealed, error, done, resources: RESTRICTED_KEY_RESOURCES, expiries: ROLL_EXPIRIES, locale: this.page.locale(request, reply) }, 'dash.keys.title', {}, status, '/dashboard/keys');
  }
}
