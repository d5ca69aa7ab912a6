import { Controller, Get, Inject, Param, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '#accounts/http/basic-auth.guard.js';
import { apiValidationPipe } from '#http/validation.js';
import type { ListPage } from '#http/list.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import { WriteThenRead } from '#platform/write-then-read.js';
import { ApiError } from '#shared/errors.js';
import { GetSubscriptionHistoryQuery } from '#subscriptions/application/get-subscription-history.js';
import { GetSubscriptionQuery } from '#subscriptions/application/get-subscription.js';
import { CsrfGuard } from '#web/csrf.guard.js';
import { formFields } from '#web/form.js';
import { PageError, PageErrorFilter } from '#web/page-errors.js';
import { apiErrorText } from '#web/api-error-messages.js';
import type { Translate } from '#web/i18n.js';
import { can } from '#team/domain/roles.js';
import type { MemberDoc } from '#team/read-models/member.read-model.js';
import { READ_STORE } from '#platform/tokens.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { DashboardPage, type DashboardVisitor, pages } from './dashboard-page.js';
import { ACTIONS, CREATE_FORMS, type DashboardForm } from './dashboard-forms.js';
import { pick, RESOURCES, searchMatch } from './dashboard-resources.js';
import type { SearchMatch } from '#platform/read-models.js';
import { valueLabel } from './dashboard-values.js';
import { listRows } from './dashboard-list-rows.js';
import { detailWords } from './dashboard-detail-words.js';
import { stateAfterFrom, type TimelineActor, type TimelineEntry, timelineMethodIds, timelineSentences } from './dashboard-timeline.js';

type Doc = Record<string, any>;

/** The labels of the dashboard's fields by the API's parameter name (`items[0][price]` → "Precio"), else the parameter itself. */
export const fieldLabel = (t: Translate) => (param: string) => {
  for (const key of [`dash.field.${param}`, `dash.field.${param.replace(/^.*\[([^\]]+)\]$/, '$1')}`]) {
    const words = t(key);
    if (words !== key) return words;
  }
  return param;
};

/** Fields of an object shown as money in its own `currency` on a detail page. */
const MONEY_FIELDS = ['unit_price', 'amount', 'amount_refunded', 'amount_paid', 'amount_due', 'amount_applied', 'amount_credited', 'subtotal', 'total'];

/** Which detail page an id belongs to, by its prefix. */
const RESOURCE_OF_PREFIX: Record<string, string> = { prod: 'products', price: 'prices', cus: 'customers', sub: 'subscriptions', col: 'collections', ch: 'charges', pm: 'payment_methods', clock: 'test_clocks', evt: 'events' };
export const linkOf = (value: unknown): string | null => {
  if (typeof value !== 'string') return null;
  const m = /^([a-z]+)_[A-Za-z0-9]+$/.exec(value);
  return m && RESOURCE_OF_PREFIX[m[1]] ? `/dashboard/${RESOURCE_OF_PREFIX[m[1]]}/${value}` : null;
};

/**
 * The merchant dashboard's resources at /dashboard: a member of the account's team signed in
 * (dashboard-auth.controller.ts), lists and detail pages over the same queries as the GET endpoints,
 * forms validated by the API's own DTOs and run as the API's own commands, with the member as actor.
 * Every request is checked against the member's role (DashboardPage.require): a forged post their
 * role does not allow is a 403 page and changes nothing.
 */
@ApiExcludeController()
@Controller('dashboard')
@UseFilters(PageErrorFilter)
@UseGuards(CsrfGuard)
export class DashboardPagesController {
  constructor(
    private readonly page: DashboardPage,
    private readonly queries: QueryBus,
    private readonly write: WriteThenRead,
    @Inject(READ_STORE) private readonly store: ReadStore,
  ) {}

  @Public()
  @Get('new/:form')
  async newForm(@Param('form') name: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const form = CREATE_FORMS[name];
    const visitor = await this.page.require(request, reply, form?.permission ?? 'dashboard.read');
    if (!visitor) return reply;
    if (!form) throw new PageError(404, 'not_found');
    return this.formPage(request, reply, visitor, form, `/dashboard/new/${name}`, {}, {}, null, 200);
  }

  @Public()
  @Post('new/:form')
  async create(@Param('form') name: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const form = CREATE_FORMS[name];
    const visitor = await this.page.require(request, reply, form?.permission ?? 'dashboard.read');
    if (!visitor) return reply;
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
    const visitor = await this.page.require(request, reply, 'dashboard.read');
    if (!visitor) return reply;
    const resource = RESOURCES[name];
    if (!resource) throw new PageError(404, 'not_found');
    const query = Object.fromEntries(Object.entries((request.query ?? {}) as Record<string, unknown>).filter(([k, v]) => k !== 'locale' && typeof v === 'string' && v !== '')) as Record<string, string>;
    let page: ListPage<Doc> | null = null;
    let error: string | null = null;
    // A list that needs a filter first (payment methods: a customer) or a test key (test clocks) says so
    // with a 200: the menu links to it. Only filters the API refuses make a 400.
    let refused = false;
    let match: SearchMatch | undefined;
    const t = this.page.t(request, reply);
    if (resource.testOnly && visitor.mode === 'live') error = t('dash.list.test_only');
    else if (resource.requires && !query[resource.requires]) error = t('dash.list.requires', { filter: t(`dash.field.${resource.requires}`).toLowerCase(), resource: t(`dash.resource.${name}`).toLowerCase() });
    else {
      try {
        const { [resource.requires ?? '']: required, q, ...rest } = query;
        const params = (await apiValidationPipe().transform({ ...rest, limit: rest.limit ?? '20' }, { type: 'query', metatype: resource.params as never, data: '' })) as Record<string, any>;
        if (resource.requires) params[resource.requires] = required;
        match = await searchMatch(this.queries, resource, visitor, q);
        page = await this.queries.execute(resource.list(visitor, params, match));
        if (page) page = { ...page, data: await listRows(this.store, visitor, name, page.data, { t, locale: this.page.locale(request, reply) }) };
      } catch (e) {
        if (!(e instanceof ApiError) || e.status >= 500) throw e;
        error = apiErrorText(e, { t, locale: this.page.locale(request, reply), field: fieldLabel(t) });
        refused = true;
      }
    }
    const next = page?.has_more ? `/dashboard/${name}?${new URLSearchParams({ ...query, starting_after: page.data[page.data.length - 1].id }).toString()}` : null;
    return this.send(request, reply, visitor, 'dash-list', { name, resource, page, query, error, refused, next, pick, linkOf, capped: match?.capped ?? false }, `dash.resource.${name}`, {}, refused ? 400 : 200);
  }

  @Public()
  @Get(':resource/:id')
  async detail(@Param('resource') name: string, @Param('id') id: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.page.require(request, reply, 'dashboard.read');
    if (!visitor) return reply;
    const resource = RESOURCES[name];
    if (!resource) throw new PageError(404, 'not_found');
    return this.detailPage(request, reply, visitor, name, id, {}, {}, null, null, 200);
  }

  /** Any other address under /dashboard: the dashboard's own 404 page (menu, footer), not the plain one. */
  @Public()
  @Get('*')
  async unknown(@Req() request: FastifyRequest) {
    await this.page.visitor(request);
    throw new PageError(404, 'not_found');
  }

  @Public()
  @Post(':resource/:id/:action')
  async act(@Param('resource') name: string, @Param('id') id: string, @Param('action') action: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const form = ACTIONS[name]?.[action];
    const visitor = await this.page.require(request, reply, form?.permission ?? 'dashboard.read');
    if (!visitor) return reply;
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
    return this.write.run(form.command(this.page.contextOf(visitor, request), validated as Record<string, any>, id));
  }

  /** The API's error, in the page's words, next to the field its `param` names, else above the form. */
  private placed(request: FastifyRequest, reply: FastifyReply, form: DashboardForm, error: ApiError): [Record<string, string>, string | null] {
    const param = error.param ?? '';
    const field = form.fields.find((f) => f.name === param) ?? form.fields.find((f) => param && param.startsWith(f.name)) ?? form.fields.find((f) => param && f.name.startsWith(param));
    const locale = this.page.locale(request, reply);
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
      timeline = (await this.queries.execute<any, ListPage<Doc>>(new GetSubscriptionHistoryQuery(visitor, id, { limit: 100 }, { actors: true }))).data;
      asOfFrom = stateAfterFrom(timeline, id);
      timeline = await this.withActors(request, reply, visitor, timeline);
      if (typeof query.as_of === 'string' && query.as_of) {
        asOf = query.as_of;
        doc = await this.queries.execute(new GetSubscriptionQuery(visitor, id, asOf));
      }
    }
    const actions = Object.entries(ACTIONS[name] ?? {}).filter(
      ([a, form]) => !(name === 'test_clocks' && a === 'advance' && visitor.mode === 'live') && can(visitor.role, form.permission) && (form.offered?.(doc) ?? true),
    );
    const done = typeof query.done === 'string' && ACTIONS[name]?.[query.done] ? query.done : null;
    const t = this.page.t(request, reply);
    // The heading and the linked objects in business terms; the ids stay beside them.
    const words = await detailWords(this.store, visitor, name, doc, { t, locale: this.page.locale(request, reply) });
    const data = { name, id, doc, resource, timeline, asOfFrom, asOf, actions, values, errors, failed, formError, done, linkOf, words, moneyFields: MONEY_FIELDS, fieldLabel: fieldLabel(t) };
    return this.send(request, reply, visitor, 'dash-detail', data, `dash.detail_title.${name}`, { id: words.headline ?? id }, status, request.method === 'GET' ? request.url : `/dashboard/${name}/${id}`);
  }

  /**
   * Each timeline entry as a sentence in the page's words (`sentence`) and who did it when the sentence
   * does not name them (`by`): members and the charges' payment methods looked up once each in the visitor's account.
   */
  private async withActors(request: FastifyRequest, reply: FastifyReply, visitor: DashboardVisitor, timeline: Doc[]): Promise<Doc[]> {
    const members = new Map<string, MemberDoc | null>();
    for (const e of timeline) {
      const member = (e.actor as TimelineActor | null)?.member;
      if (!member || members.has(member)) continue;
      const doc = await this.store.get<MemberDoc>('members', member);
      members.set(member, doc && doc.account_id === visitor.accountId ? doc : null);
    }
    const methods = new Map<string, Doc>();
    for (const pm of timelineMethodIds(timeline as TimelineEntry[])) {
      const doc = await this.store.get<Doc>('payment_methods', pm);
      if (doc && doc._account === visitor.accountId && doc.is_test === (visitor.mode === 'test')) methods.set(pm, doc);
    }
    const locale = this.page.locale(request, reply);
    const sentences = timelineSentences(timeline as TimelineEntry[], { t: pages.helpers(locale).t, locale, members, methods });
    return timeline.map((e, i) => ({ ...e, ...sentences[i], actorMember: (e.actor as TimelineActor | null)?.member ?? null }));
  }

  private formPage(request: FastifyRequest, reply: FastifyReply, visitor: DashboardVisitor, form: DashboardForm, action: string, values: Record<string, string>, errors: Record<string, string>, formError: string | null, status: number) {
    // The language switch of a refused form leads to the form's own page (GET), not to where it posted.
    return this.send(request, reply, visitor, 'dash-form', { form, action, values, errors, formError }, form.title, {}, status, action);
  }

  private send(request: FastifyRequest, reply: FastifyReply, visitor: DashboardVisitor, view: string, data: Record<string, unknown>, titleKey: string, titleParams: Record<string, string>, status: number, path: string = request.url) {
    const t = this.page.t(request, reply);
    const resource = typeof data.name === 'string' ? data.name : '';
    const label = (field: string, value: unknown) => valueLabel(t, resource, field, value);
    return this.page.send(request, reply, visitor, view, { ...data, label }, titleKey, titleParams, status, path);
  }
}
