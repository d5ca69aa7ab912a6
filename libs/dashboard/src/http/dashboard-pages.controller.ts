import { Controller, Get, Inject, Param, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../../../accounts/src/http/basic-auth.guard.js';
import { apiValidationPipe } from '../../../http/src/validation.js';
import type { ListPage } from '../../../http/src/list.js';
import { AggregateExecutor } from '../../../platform/src/aggregate-executor.js';
import type { Config } from '../../../platform/src/config.js';
import { CONFIG, READ_STORE } from '../../../platform/src/tokens.js';
import type { ReadStore } from '../../../read-store/src/read-store.port.js';
import { WriteThenRead } from '../../../platform/src/write-then-read.js';
import { ApiError } from '../../../shared/src/errors.js';
import { GetSubscriptionHistoryQuery } from '../../../subscriptions/src/application/get-subscription-history.js';
import { GetSubscriptionQuery } from '../../../subscriptions/src/application/get-subscription.js';
import { CsrfGuard } from '../../../web/src/csrf.guard.js';
import { formFields } from '../../../web/src/form.js';
import { assetDir, PageRenderer } from '../../../web/src/page-renderer.js';
import { PageError, PageErrorFilter } from '../../../web/src/page-errors.js';
import { csrfToken } from '../../../web/src/security.js';
import { DashboardSignIn, type DashboardVisitor, DASHBOARD_SESSION_TTL_MS } from '../application/dashboard-sign-in.js';
import { ACTIONS, CREATE_FORMS, type DashboardForm } from './dashboard-forms.js';
import { pick, RESOURCES } from './dashboard-resources.js';

const pages = new PageRenderer(assetDir(import.meta.url, '../../views'), { 'es-CO': {}, en: {} });
export const DASHBOARD_COOKIE = 'dashboard_session';
type Doc = Record<string, any>;

/** Which detail page an id belongs to, by its prefix. */
const RESOURCE_OF_PREFIX: Record<string, string> = { prod: 'products', price: 'prices', cus: 'customers', sub: 'subscriptions', col: 'collections', ch: 'charges', pm: 'payment_methods', clock: 'test_clocks', evt: 'events' };
export const linkOf = (value: unknown): string | null => {
  if (typeof value !== 'string') return null;
  const m = /^([a-z]+)_[A-Za-z0-9]+$/.exec(value);
  return m && RESOURCE_OF_PREFIX[m[1]] ? `/dashboard/${RESOURCE_OF_PREFIX[m[1]]}/${value}` : null;
};

/**
 * The merchant dashboard at /dashboard: signed in with a secret key (the key's mode is the
 * dashboard's mode), lists and detail pages over the same queries as the GET endpoints, forms
 * validated by the API's own DTOs and run as the API's own commands, with the dashboard as actor.
 */
@ApiExcludeController()
@Controller('dashboard')
@UseFilters(PageErrorFilter)
@UseGuards(CsrfGuard)
export class DashboardPagesController {
  constructor(
    private readonly signIn: DashboardSignIn,
    private readonly queries: QueryBus,
    private readonly write: WriteThenRead,
    private readonly executor: AggregateExecutor,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(READ_STORE) private readonly store: ReadStore,
  ) {}

  @Public()
  @Get()
  async root(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.visitor(request);
    const wanted = (request.query as Record<string, unknown>)?.mode;
    if (visitor && !(wanted === 'test' || wanted === 'live')) return reply.redirect('/dashboard/subscriptions', 303);
    return this.loginPage(reply, null, 200, visitor && wanted !== visitor.mode ? String(wanted) : null);
  }

  @Public()
  @Post('login')
  async login(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const key = formFields(request).key ?? '';
    const signed = await this.signIn.signIn(key, this.executor.now(), await this.visitor(request));
    if (!signed) return this.loginPage(reply, key.trim() === '' ? 'Missing required param: key.' : 'Invalid API key provided.', 401, null);
    this.setCookie(reply, signed.cookie);
    return reply.redirect('/dashboard/subscriptions', 303);
  }

  /** The test/live switch: to the other mode when its key was given in this session, else to sign in with it. */
  @Public()
  @Post('switch')
  async switchMode(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.visitor(request);
    if (!visitor) return reply.redirect('/dashboard', 303);
    const cookie = await this.signIn.switchMode(visitor, this.executor.now());
    if (!cookie) return reply.redirect(`/dashboard?mode=${visitor.mode === 'test' ? 'live' : 'test'}`, 303);
    this.setCookie(reply, cookie);
    return reply.redirect('/dashboard/subscriptions', 303);
  }

  private setCookie(reply: FastifyReply, value: string) {
    reply.setCookie(DASHBOARD_COOKIE, value, { path: '/dashboard', httpOnly: true, sameSite: 'lax', secure: this.config.portalUrl.startsWith('https:'), maxAge: DASHBOARD_SESSION_TTL_MS / 1000 });
  }

  @Public()
  @Post('logout')
  logout(@Res() reply: FastifyReply) {
    reply.clearCookie(DASHBOARD_COOKIE, { path: '/dashboard' });
    return reply.redirect('/dashboard', 303);
  }

  @Public()
  @Get('new/:form')
  async newForm(@Param('form') name: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.visitor(request);
    if (!visitor) return reply.redirect('/dashboard', 303);
    const form = CREATE_FORMS[name];
    if (!form) throw new PageError(404, 'not_found');
    return this.formPage(reply, visitor, form, `/dashboard/new/${name}`, {}, {}, null, 200);
  }

  @Public()
  @Post('new/:form')
  async create(@Param('form') name: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.visitor(request);
    if (!visitor) return reply.redirect('/dashboard', 303);
    const form = CREATE_FORMS[name];
    if (!form) throw new PageError(404, 'not_found');
    const fields = formFields(request);
    try {
      const result = await this.run(request, visitor, form, fields);
      return reply.redirect(`/dashboard/${form.resource}/${result.id}`, 303);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      return this.formPage(reply, visitor, form, `/dashboard/new/${name}`, fields, ...this.placed(form, error), error.status);
    }
  }

  @Public()
  @Get(':resource')
  async list(@Param('resource') name: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.visitor(request);
    if (!visitor) return reply.redirect('/dashboard', 303);
    const resource = RESOURCES[name];
    if (!resource) throw new PageError(404, 'not_found');
    const query = Object.fromEntries(Object.entries((request.query ?? {}) as Record<string, unknown>).filter(([, v]) => typeof v === 'string' && v !== '')) as Record<string, string>;
    let page: ListPage<Doc> | null = null;
    let error: string | null = null;
    if (resource.testOnly && visitor.mode === 'live') error = 'Test clocks are only available with a test key.';
    else if (resource.requires && !query[resource.requires]) error = `Choose a ${resource.requires} to list its ${resource.title.toLowerCase()}.`;
    else {
      try {
        const { [resource.requires ?? '']: required, ...rest } = query;
        const params = (await apiValidationPipe().transform({ ...rest, limit: rest.limit ?? '20' }, { type: 'query', metatype: resource.params as never, data: '' })) as Record<string, any>;
        if (resource.requires) params[resource.requires] = required;
        page = await this.queries.execute(resource.list(visitor, params));
      } catch (e) {
        if (!(e instanceof ApiError) || e.status >= 500) throw e;
        error = e.param ? `${e.param}: ${e.message}` : e.message;
      }
    }
    const next = page?.has_more ? `/dashboard/${name}?${new URLSearchParams({ ...query, starting_after: page.data[page.data.length - 1].id }).toString()}` : null;
    return this.send(reply, visitor, 'dash-list', { name, resource, page, query, error, next, pick, linkOf }, resource.title, error && !page ? 400 : 200);
  }

  @Public()
  @Get(':resource/:id')
  async detail(@Param('resource') name: string, @Param('id') id: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.visitor(request);
    if (!visitor) return reply.redirect('/dashboard', 303);
    const resource = RESOURCES[name];
    if (!resource) throw new PageError(404, 'not_found');
    return this.detailPage(request, reply, visitor, name, id, {}, {}, null, null, 200);
  }

  @Public()
  @Post(':resource/:id/:action')
  async act(@Param('resource') name: string, @Param('id') id: string, @Param('action') action: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.visitor(request);
    if (!visitor) return reply.redirect('/dashboard', 303);
    const form = ACTIONS[name]?.[action];
    if (!form) throw new PageError(404, 'not_found');
    await this.queries.execute(RESOURCES[name].get(visitor, id)); // 404 for what this key cannot see
    const fields = formFields(request);
    try {
      await this.run(request, visitor, form, fields, id);
      return reply.redirect(`/dashboard/${name}/${id}?done=${action}`, 303);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500 || error.status === 404) throw error;
      const [errors, formError] = this.placed(form, error);
      return this.detailPage(request, reply, visitor, name, id, { [action]: fields }, { [action]: errors }, action, formError, error.status);
    }
  }

  /** Validates the posted form as the API's body (its DTO) and runs the API's command; answers once projected. */
  private async run(request: FastifyRequest, visitor: DashboardVisitor, form: DashboardForm, fields: Record<string, string>, id?: string) {
    const body = form.body(fields);
    const validated = form.fields.length === 0 ? body : await apiValidationPipe().transform(body, { type: 'body', metatype: form.dto as never, data: '' });
    return this.write.run(form.command(this.signIn.contextOf(visitor, String(request.id)), validated as Record<string, any>, id));
  }

  /** The API's error next to the field its `param` names, else above the form. */
  private placed(form: DashboardForm, error: ApiError): [Record<string, string>, string | null] {
    const param = error.param ?? '';
    const field = form.fields.find((f) => f.name === param) ?? form.fields.find((f) => param && param.startsWith(f.name)) ?? form.fields.find((f) => param && f.name.startsWith(param));
    return field ? [{ [field.name]: error.message }, null] : [{}, error.message];
  }

  private async detailPage(request: FastifyRequest, reply: FastifyReply, visitor: DashboardVisitor, name: string, id: string, values: Record<string, Record<string, string>>, errors: Record<string, Record<string, string>>, failed: string | null, formError: string | null, status: number) {
    const resource = RESOURCES[name];
    const query = (request.query ?? {}) as Record<string, string>;
    let doc: Doc = await this.queries.execute(resource.get(visitor, id));
    let timeline: Doc[] | null = null;
    let asOf: string | null = null;
    if (name === 'subscriptions') {
      timeline = (await this.queries.execute<any, ListPage<Doc>>(new GetSubscriptionHistoryQuery(visitor, id, { limit: 100 }))).data;
      if (typeof query.as_of === 'string' && query.as_of) {
        asOf = query.as_of;
        doc = await this.queries.execute(new GetSubscriptionQuery(visitor, id, asOf));
      }
    }
    const actions = Object.entries(ACTIONS[name] ?? {}).filter(([a]) => !(name === 'test_clocks' && a === 'advance' && visitor.mode === 'live'));
    const done = typeof query.done === 'string' && /^[a-z_]+$/.test(query.done) ? query.done : null;
    return this.send(reply, visitor, 'dash-detail', { name, id, doc, resource, timeline, asOf, actions, values, errors, failed, formError, done, linkOf }, `${resource.title.replace(/s$/, '')} ${id}`, status);
  }

  private formPage(reply: FastifyReply, visitor: DashboardVisitor, form: DashboardForm, action: string, values: Record<string, string>, errors: Record<string, string>, formError: string | null, status: number) {
    return this.send(reply, visitor, 'dash-form', { form, action, values, errors, formError }, form.title, status);
  }

  private loginPage(reply: FastifyReply, error: string | null, status: number, mode: string | null) {
    return pages.send(reply, 'dash-login', { csrf: csrfToken(reply), error, mode }, { locale: 'en', title: 'Dashboard sign-in', brand: 'Dashboard', status });
  }

  private async send(reply: FastifyReply, visitor: DashboardVisitor, view: string, data: Record<string, unknown>, title: string, status: number) {
    const account = await this.store.get<{ name?: string }>('accounts', visitor.accountId);
    const nav = Object.entries(RESOURCES).map(([key, r]) => ({ key, title: r.title }));
    return pages.send(reply, view, { ...data, csrf: csrfToken(reply), mode: visitor.mode, nav, createForms: Object.entries(CREATE_FORMS).filter(([k]) => !(k === 'test_clock' && visitor.mode === 'live')).map(([k, f]) => ({ key: k, title: f.title })) }, { locale: 'en', title, brand: account?.name ? `${account.name} · Dashboard` : 'Dashboard', test: visitor.mode === 'test', status });
  }

  private visitor(request: FastifyRequest) {
    return this.signIn.visitor(request.cookies?.[DASHBOARD_COOKIE], this.executor.now());
  }
}
