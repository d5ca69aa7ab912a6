import { Controller, Get, Inject, Param, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '#accounts/http/basic-auth.guard.js';
import { AccountGateways } from '#accounts/application/account-gateways.js';
import { PayCollectionCommand } from '#collections/application/pay-collection.js';
import type { CommandResult } from '#platform/write-then-read.js';
import type { Config } from '#platform/config.js';
import { CONFIG, READ_STORE } from '#platform/tokens.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { ApiError } from '#shared/errors.js';
import { Money } from '#shared/money.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { CsrfGuard } from '#web/csrf.guard.js';
import { formFields } from '#web/form.js';
import { resolveLocale, type Locale } from '#web/i18n.js';
import { PageError, PageErrorFilter } from '#web/page-errors.js';
import { csrfToken } from '#web/security.js';
import { FIELD_MESSAGES, keptValues, type PageFlash, refusalOf, refusalText, setFlash, takeFlash } from './flash.js';
import { declineMessage, type FieldErrors, pageMethods, paymentInformationFrom, PSE_BANKS } from './payment-form.js';
import { checkoutPages, pageContext, withLocale } from './pages.js';

type Doc = Record<string, any> & { id: string; _account: string; is_test: boolean };
/** What a post leaves for the page's next GET (flash.ts), scoped to `/checkout/col/<id>`. */
const FLASH_COOKIE = 'col_flash';

const PAYABLE = ['pending', 'past_due'];

/**
 * The collection page, `{checkout_url}/col/<collection_id>` (the collection's `checkout_url`): the
 * customer sees what is due and pays it with the methods the merchant's account allows, through the
 * same command as `POST /v1/collections/{id}/pay` (initiated by the customer). A decline is shown on
 * the same page, ready for another try; a paid, void or uncollectible collection shows its state; a
 * processing one shows its bank redirect or voucher. The collection's attempt admits one payment in
 * flight, so two tabs paying at once end with one charge.
 */
@ApiExcludeController()
@Controller('checkout/col')
@UseFilters(PageErrorFilter)
@UseGuards(CsrfGuard)
export class CollectionPageController {
  constructor(
    @Inject(READ_STORE) private readonly store: ReadStore,
    private readonly commands: CommandBus,
    private readonly gateways: AccountGateways,
    private readonly projections: ProjectionEngine,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  @Public()
  @Get(':id')
  async show(@Param('id') id: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const locale = resolveLocale((request.query as Record<string, unknown>)?.locale);
    const col = await this.collection(id);
    // What the previous post left for this page: a refused field, a refusal or a decline, worded in this page's language.
    const flash = takeFlash(request, reply, FLASH_COOKIE, `/checkout/col/${id}`);
    if (!flash || !PAYABLE.includes(col.status)) return this.render(request, reply, col, locale, {});
    const t = checkoutPages.helpers(locale).t;
    const errors: FieldErrors = Object.fromEntries((flash.fields ?? []).map((f) => [f, t(FIELD_MESSAGES[f])]));
    const r = flash.refusal;
    const formError = !r ? null : r.type === 'payment_error' ? declineMessage(t, { code: r.code, message: '', extra: { decline_code: r.decline_code } }) : refusalText(t, locale, r);
    return this.render(request, reply, col, locale, { errors, formError, formErrorHint: r?.type === 'payment_error' ? t('decline.retry') : null, fields: flash.values ?? {} });
  }

  /**
   * The payment form. Post/redirect/get: every answer is a redirect (303) to the collection's page, so
   * a reload never sends the form again and the language link leads to the page; a refused field, a
   * refusal or a decline reaches that page through the flash cookie (codes, and what the customer typed
   * except the card number and CVC), which words it in the page's language.
   */
  @Public()
  @Post(':id/pay')
  async pay(@Param('id') id: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const fields = formFields(request);
    const locale = resolveLocale(fields.locale);
    const t = checkoutPages.helpers(locale).t;
    const col = await this.collection(id);
    const page = withLocale(`/checkout/col/${id}`, locale);
    if (!PAYABLE.includes(col.status)) return reply.redirect(page, 303);
    const back = (flash: PageFlash) => {
      setFlash(reply, FLASH_COOKIE, `/checkout/col/${id}`, { ...flash, at: 'pay', values: keptValues(fields) }, this.config.checkoutUrl.startsWith('https:'));
      return reply.redirect(page, 303);
    };
    const methods = await this.methods(col);
    const parsed = paymentInformationFrom(fields, methods, t);
    if (parsed.errors) return back({ fields: Object.keys(parsed.errors) });
    let result: CommandResult;
    try {
      result = await this.commands.execute<PayCollectionCommand, CommandResult>(new PayCollectionCommand(pageContext(request, col), id, { payment_information: parsed.info }, 'customer'));
    } catch (err) {
      if (!(err instanceof ApiError) || err.status >= 500) throw err;
      if (err.code === 'collection_already_paid') return reply.redirect(page, 303); // another tab paid: the page shows it
      // Another tab is paying (409 payment_in_progress): the page says so, in its language.
      const field = err.param?.includes('[number]') ? 'card_number' : err.param?.includes('exp') ? 'card_exp' : err.param?.includes('cvc') ? 'card_cvc' : null;
      return back(field ? { fields: [field] } : { refusal: refusalOf(err) });
    }
    await this.projections.waitFor(result.position);
    const after = await this.collection(id);
    const redirect = after.status === 'processing' ? (after.additional_data as { type?: string; redirect_url?: string } | null) : null;
    if (redirect?.type === 'redirect' && redirect.redirect_url) return reply.redirect(withLocale(redirect.redirect_url, locale), 303);
    return reply.redirect(page, 303);
  }

  private async collection(id: string): Promise<Doc> {
    const col = await this.store.get<Doc>('collections', id);
    if (!col || col._deleted) throw new PageError(404, 'not_found');
    return col;
  }

  private async methods(col: Doc) {
    const configured = await this.gateways.configured(col._account, col.is_test ? 'test' : 'live');
    return pageMethods(configured, col.payment_method_gateway ?? null);
  }

  private async render(
    request: FastifyRequest,
    reply: FastifyReply,
    col: Doc,
    locale: Locale,
    opts: { status?: number; errors?: FieldErrors; formError?: string | null; formErrorHint?: string | null; fields?: Record<string, string> },
  ) {
    const helpers = checkoutPages.helpers(locale);
    const t = helpers.t;
    const account = await this.store.get<{ name?: string }>('accounts', col._account);
    const customer = await this.store.get<{ name?: string | null }>('customers', col.customer);
    const state = PAYABLE.includes(col.status) ? null : col.status;
    const stateMessage =
      state === 'paid' ? t('col.paid.body', { date: helpers.date(col.paid_date) }) : state && state !== 'processing' ? t(`col.${state}.body`) : null;
    const lines = ((col.items ?? []) as { name: string; quantity: number; total: string; product?: { name?: string } }[]).map((i) => ({
      name: i.name || i.product?.name || '',
      quantity: i.quantity,
      total: i.total,
    }));
    const discounts = ((col.discounts ?? []) as { id: string; code: string }[])
      .map((d) => ({ code: d.code, amount: (col.discount_amounts ?? {})[d.id] as string | undefined }))
      .filter((d): d is { code: string; amount: string } => !!d.amount);
    const values = opts.fields ?? {};
    return checkoutPages.send(
      reply,
      'collection',
      {
        col,
        state,
        stateMessage,
        heading: state ? t(`col.status.${state}`) : t('col.title'),
        customerName: customer?.name ?? null,
        lines,
        discounts,
        // What credit notes of its invoice took off (the total shown is what is left).
        credited: col.amount_credited && new Money(col.amount_credited).gt(0) ? col.amount_credited : null,
        awaiting: state === 'processing' ? col.additional_data : null,
        // A voucher's instructions in the page's words (the gateway's own are English).
        voucherHow:
          state === 'processing' && col.additional_data?.reference
            ? t('col.processing.voucher_how', { amount: helpers.money(col.total, col.currency), method: methodName(t, String(col.additional_data.method ?? '')) })
            : null,
        selfUrl: withLocale(`/checkout/col/${col.id}`, locale),
        // the payment form
        ...(state
          ? {}
          : {
              action: `/checkout/col/${col.id}/pay`,
              csrf: csrfToken(reply),
              methods: await this.methods(col),
              banks: PSE_BANKS,
              selected: values.method ?? null,
              errors: opts.errors ?? {},
              formError: opts.formError ?? null,
              formErrorHint: opts.formErrorHint ?? null,
              // Never the card number or CVC: only what is harmless to show again.
              values: { card_exp: values.card_exp ?? '', card_holder: values.card_holder ?? '', bank_code: values.bank_code ?? '' },
              submitLabel: t('pay.submit', { amount: helpers.money(col.total, col.currency) }),
              hidden: {},
            }),
      },
      { locale, title: state ? t(`col.status.${state}`) : t('col.title'), brand: account?.name ?? null, test: col.is_test, path: request.url, status: opts.status },
    );
  }
}

/** A method's name as the page shows it (`method.<id>`); a merchant's own offline name as written. */
function methodName(t: (key: string) => string, method: string): string {
  const words = t(`method.${method}`);
  return words === `method.${method}` ? method : words;
}
