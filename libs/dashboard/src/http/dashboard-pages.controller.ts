import { Controller, Get, Inject, Param, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '#accounts/http/basic-auth.guard.js';
import { apiValidationPipe } from '#http/validation.js';
import type { ListPage } from '#http/list.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { Config } from '#platform/config.js';
import { CONFIG, READ_STORE } from '#platform/tokens.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { WriteThenRead } from '#platform/write-then-read.js';
import { ApiError } from '#shared/errors.js';
import { GetSubscriptionHistoryQuery } from '#subscriptions/application/get-subscription-history.js';
import { GetSubscriptionQuery } from '#subscriptions/application/get-subscription.js';
import { CsrfGuard } from '#web/csrf.guard.js';
import { formFields } from '#web/form.js';
import { assetDir, PageRenderer } from '#web/page-renderer.js';
import { PageError, PageErrorFilter, type PageFailure, registerErrorPages } from '#web/page-errors.js';
import { API_ERROR_MESSAGES, apiErrorText } from '#web/api-error-messages.js';
import { csrfToken } from '#web/security.js';
import { type Locale, mergeCatalogs, resolveLocale, type Translate } from '#web/i18n.js';
import { DashboardSignIn, type DashboardVisitor, DASHBOARD_SESSION_TTL_MS } from '../application/dashboard-sign-in.js';
import { ACTIONS, CREATE_FORMS, type DashboardForm } from './dashboard-forms.js';
import { DASHBOARD_MESSAGES } from './dashboard-messages.js';
import { pick, RESOURCES } from './dashboard-resources.js';
import { valueLabel } from './dashboard-values.js';
import { stateAfterFrom } from './dashboard-timeline.js';

const pages = new PageRenderer(assetDir(import.meta.url, '../../views'), mergeCatalogs(API_ERROR_MESSAGES, DASHBOARD_MESSAGES));
export const DASHBOARD_COOKIE = 'dashboard_session';
/** The dashboard's language, kept across pages and redirects once chosen (`?locale=` or a form's `locale`). */
export const DASHBOARD_LOCALE_COOKIE = 'dashboard_locale';
type Doc = Record<string, any>;

/** The signed-in visitor of a request and their account's name, kept for the page that answers it (an error page too). */
const signedIn = new WeakMap<object, { visitor: DashboardVisitor; accountName: string | null }>();

/** The dashboard's language without remembering it: `?locale=`, a posted `locale`, the remembered one, else es-CO. */
function dashboardLocale(request: FastifyRequest): Locale {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const body = (request.method === 'POST' && request.body && typeof request.body === 'object' ? request.body : {}) as Record<string, unknown>;
  const asked = query.locale ?? body.locale;
  if (typeof asked === 'string' && asked !== '') return resolveLocale(asked);
  return resolveLocale(request.cookies?.[DASHBOARD_LOCALE_COOKIE]);
}

/** The labels of the dashboard's fields by the API's parameter name (`items[0][price]` → "Precio"), else the parameter itself. */
export const fieldLabel = (t: Translate) => (param: string) => {
  for (const key of [`dash.field.${param}`, `dash.field.${param.replace(/^.*\[([^\]]+)\]$/, '$1')}`]) {
    const words = t(key);
    if (words !== key) return words;
  }
  return param;
};

/** The menu every signed-in dashboard page shows (dash-nav.eta). */
function navOf(t: Translate, visitor: DashboardVisitor) {
  return {
    nav: Object.keys(RESOURCES).map((key) => ({ key, title: t(`dash.resource.${key}`) })),
    createForms: Object.keys(CREATE_FORMS).filter((k) => !(k === 'test_clock' && visitor.mode === 'live')).map((k) => ({ key: k })),
    mode: visitor.mode,
  };
}

/**
 * A failure on a dashboard page is shown in the dashboard's layout: its menu (when signed in), its
 * brand and its footer, in the dashboard's language — never the checkout's "Pago seguro" page.
 */
registerErrorPages('/dashboard', (request: FastifyRequest, reply: FastifyReply, failure: PageFailure) => {
  const locale = dashboardLocale(request);
  const t = pages.helpers(locale).t;
  const who = signedIn.get(request);
  const title = t(failure.titleKey);
  const brand = who?.accountName ? `${who.accountName} · ${t('dash.brand')}` : t('dash.brand');
  return pages.send(
    reply,
    'dash-error',
    { heading: title, message: failure.body(t, locale), reference: failure.reference, signedIn: !!who, csrf: csrfToken(reply), ...(who ? navOf(t, who.visitor) : {}) },
    { locale, title, brand, test: who?.visitor.mode === 'test', path: request.method === 'GET' ? request.url : null, status: failure.status },
  );
});

/** Fields of an object shown as money in its own `currency` on a detail page. */
const MONEY_FIELDS = ['unit_price', 'amount', 'amount_refunded', 'amount_paid', 'amount_due', 'subtotal', 'total'];

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
    const locale = this.locale(request, reply);
    const wanted = (request.query as Record<string, unknown>)?.mode;
    if (visitor && !(wanted === 'test' || wanted === 'live')) return reply.redirect('/dashboard/subscriptions', 303);
    return this.loginPage(request, reply, locale, null, 200, visitor && (wanted === 'test' || wanted === 'live') && wanted !== visitor.mode ? wanted : null);
  }

  @Public()
  @Post('login')
  async login(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const key = formFields(request).key ?? '';
    const locale = this.locale(request, reply);
    const signed = await this.signIn.signIn(key, this.executor.now(), await this.visitor(request));
    // The page's words for a missing or wrong key (the API answers the same refusals in its English).
    if (!signed) return this.loginPage(request, reply, locale, pages.helpers(locale).t(key.trim() === '' ? 'dash.login.missing_key' : 'dash.login.invalid_key'), 401, null);
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
    return this.formPage(request, reply, visitor, form, `/dashboard/new/${name}`, {}, {}, null, 200);
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
      return this.formPage(request, reply, visitor, form, `/dashboard/new/${name}`, fields, ...this.placed(request, reply, form, error), error.status);
    }
  }

  @Public()
  @Get(':resource')
  async list(@Param('resource') name: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.visitor(request);
    if (!visitor) return reply.redirect('/dashboard', 303);
    const resource = RESOURCES[name];
    if (!resource) throw new PageError(404, 'not_found');
    const query = Object.fromEntries(Object.entries((request.query ?? {}) as Record<string, unknown>).filter(([k, v]) => k !== 'locale' && typeof v === 'string' && v !== '')) as Record<string, string>;
    let page: ListPage<Doc> | null = null;
    let error: string | null = null;
    // A list that needs a filter first (payment methods: a customer) or a test key (test clocks) says so
    // with a 200: the menu links to it. Only filters the API refuses make a 400.
    let refused = false;
    const t = pages.helpers(this.locale(request, reply)).t;
    if (resource.testOnly && visitor.mode === 'live') error = t('dash.list.test_only');
    else if (resource.requires && !query[resource.requires]) error = t('dash.list.requires', { filter: t(`dash.field.${resource.requires}`).toLowerCase(), resource: t(`dash.resource.${name}`).toLowerCase() });
    else {
      try {
        const { [resource.requires ?? '']: required, ...rest } = query;
        const params = (await apiValidationPipe().transform({ ...rest, limit: rest.limit ?? '20' }, { type: 'query', metatype: resource.params as never, data: '' })) as Record<string, any>;
        if (resource.requires) params[resource.requires] = required;
        page = await this.queries.execute(resource.list(visitor, params));
      } catch (e) {
        if (!(e instanceof ApiError) || e.status >= 500) throw e;
        error = apiErrorText(e, { t, locale: this.locale(request, reply), field: fieldLabel(t) });
        refused = true;
      }
    }
    const next = page?.has_more ? `/dashboard/${name}?${new URLSearchParams({ ...query, starting_after: page.data[page.data.length - 1].id }).toString()}` : null;
    return this.send(request, reply, visitor, 'dash-list', { name, resource, page, query, error, refused, next, pick, linkOf }, `dash.resource.${name}`, {}, refused ? 400 : 200);
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

  /** Any other address under /dashboard: the dashboard's own 404 page (menu, footer), not the plain one. */
  @Public()
  @Get('*')
  async unknown(@Req() request: FastifyRequest) {
    await this.visitor(request);
    throw new PageError(404, 'not_found');
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
      const [errors, formError] = this.placed(request, reply, form, error);
      return this.detailPage(request, reply, visitor, name, id, { [action]: fields }, { [action]: errors }, action, formError, error.status);
    }
  }

  /** Validates the posted form as the API's body (its DTO) and runs the API's command; answers once projected. */
  private async run(request: FastifyRequest, visitor: DashboardVisitor, form: DashboardForm, fields: Record<string, string>, id?: string) {
    const body = form.body(fields);
    const validated = form.fields.length === 0 ? body : await apiValidationPipe().transform(body, { type: 'body', metatype: form.dto as never, data: '' });
    return this.write.run(form.command(this.signIn.contextOf(visitor, String(request.id)), validated as Record<string, any>, id));
  }

  /** The API's error, in the page's words, next to the field its `param` names, else above the form. */
  private placed(request: FastifyRequest, reply: FastifyReply, form: DashboardForm, error: ApiError): [Record<string, string>, string | null] {
    const param = error.param ?? '';
    const field = form.fields.find((f) => f.name === param) ?? form.fields.find((f) => param && param.startsWith(f.name)) ?? form.fields.find((f) => param && f.name.startsWith(param));
    const locale = this.locale(request, reply);
    const t = pages.helpers(locale).t;
    const message = apiErrorText(error, { t, locale, field: fieldLabel(t) });
    return field ? [{ [field.name]: message }, null] : [{}, message];
  }

  private async detailPage(request: FastifyRequest, reply: FastifyReply, visitor: DashboardVisitor, name: string, id: string, values: Record<string, Record<string, string>>, errors: Record<string, Record<string, string>>, failed: string | null, formError: string | null, status: number) {
    const resource = RESOURCES[name];
    const query = (request.query ?? {}) as Record<string, string>;
    let doc: Doc = await this.queries.execute(resource.get(visitor, id));
    let timeline: Doc[] | null = null;
    let asOf: string | null = null;
    let asOfFrom = -1;
    if (name === 'subscriptions') {
      timeline = (await this.queries.execute<any, ListPage<Doc>>(new GetSubscriptionHistoryQuery(visitor, id, { limit: 100 }))).data;
      asOfFrom = stateAfterFrom(timeline, id);
      if (typeof query.as_of === 'string' && query.as_of) {
        asOf = query.as_of;
        doc = await this.queries.execute(new GetSubscriptionQuery(visitor, id, asOf));
      }
    }
    const actions = Object.entries(ACTIONS[name] ?? {}).filter(
      ([a, form]) => !(name === 'test_clocks' && a === 'advance' && visitor.mode === 'live') && (form.offered?.(doc) ?? true),
    );
    const done = typeof query.done === 'string' && ACTIONS[name]?.[query.done] ? query.done : null;
    return this.send(request, reply, visitor, 'dash-detail', { name, id, doc, resource, timeline, asOfFrom, asOf, actions, values, errors, failed, formError, done, linkOf, moneyFields: MONEY_FIELDS }, `dash.detail_title.${name}`, { id }, status, request.method === 'GET' ? request.url : `/dashboard/${name}/${id}`);
  }

  private formPage(request: FastifyRequest, reply: FastifyReply, visitor: DashboardVisitor, form: DashboardForm, action: string, values: Record<string, string>, errors: Record<string, string>, formError: string | null, status: number) {
    // The language switch of a refused form leads to the form's own page (GET), not to where it posted.
    return this.send(request, reply, visitor, 'dash-form', { form, action, values, errors, formError }, form.title, {}, status, action);
  }

  private loginPage(request: FastifyRequest, reply: FastifyReply, locale: Locale, error: string | null, status: number, mode: 'test' | 'live' | null) {
    const t = pages.helpers(locale).t;
    return pages.send(reply, 'dash-login', { csrf: csrfToken(reply), error, mode }, { locale, title: t('dash.login.page_title'), brand: t('dash.brand'), path: request.method === 'GET' ? request.url : '/dashboard', status });
  }

  /**
   * `titleKey` and `titleParams`: the page title's message. `path`: the GET address the language
   * switch links to (a page answering a form post names the page the form is on).
   */
  private async send(request: FastifyRequest, reply: FastifyReply, visitor: DashboardVisitor, view: string, data: Record<string, unknown>, titleKey: string, titleParams: Record<string, string>, status: number, path: string = request.url) {
    const locale = this.locale(request, reply);
    const t = pages.helpers(locale).t;
    const accountName = signedIn.get(request)?.accountName ?? (await this.store.get<{ name?: string }>('accounts', visitor.accountId))?.name ?? null;
    const resource = typeof data.name === 'string' ? data.name : '';
    const label = (field: string, value: unknown) => valueLabel(t, resource, field, value);
    return pages.send(reply, view, { ...data, csrf: csrfToken(reply), ...navOf(t, visitor), label }, { locale, title: t(titleKey, titleParams), brand: accountName ? `${accountName} · ${t('dash.brand')}` : t('dash.brand'), test: visitor.mode === 'test', path, status });
  }

  /**
   * The page's language: `?locale=` or a posted `locale` field (then remembered in a cookie, so links
   * and redirects keep it), else the remembered one, else Spanish (es-CO).
   */
  private locale(request: FastifyRequest, reply: FastifyReply): Locale {
    const asked = (request.query as Record<string, unknown>)?.locale ?? (request.method === 'POST' ? formFields(request).locale : undefined);
    if (typeof asked === 'string' && asked !== '') {
      const locale = dashboardLocale(request);
      reply.setCookie(DASHBOARD_LOCALE_COOKIE, locale, { path: '/dashboard', httpOnly: true, sameSite: 'lax', secure: this.config.portalUrl.startsWith('https:'), maxAge: 365 * 24 * 60 * 60 });
      return locale;
    }
    return resolveLocale(request.cookies?.[DASHBOARD_LOCALE_COOKIE]);
  }

  /** The signed-in visitor (null: not signed in), remembered with the account's name for this request's page, error pages included. */
  private async visitor(request: FastifyRequest) {
    const visitor = await this.signIn.visitor(request.cookies?.[DASHBOARD_COOKIE], this.executor.now());
    if (visitor) signedIn.set(request, { visitor, accountName: (await this.store.get<{ name?: string }>('accounts', visitor.accountId))?.name ?? null });
    return visitor;
  }
}
