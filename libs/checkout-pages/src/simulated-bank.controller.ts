import { Controller, Get, Inject, Param, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '#accounts/http/basic-auth.guard.js';
import { SettleProcessingPaymentCommand } from '#collections/application/settle-processing-payment.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { READ_STORE } from '#platform/tokens.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { ApiError } from '#shared/errors.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { CsrfGuard } from '#web/csrf.guard.js';
import { formFields } from '#web/form.js';
import { resolveLocale } from '#web/i18n.js';
import { PageError, PageErrorFilter } from '#web/page-errors.js';
import { csrfToken } from '#web/security.js';
import { PSE_BANKS } from './payment-form.js';
import { checkoutPages, pageContext, withLocale } from './pages.js';

type Doc = Record<string, any> & { id: string; _account: string; is_test: boolean };

/**
 * The gateway simulator's PSE bank, at the charge's `redirect_url`
 * (`{checkout_url}/sim/<gateway>/pse/<charge_id>`): the tester approves or rejects the payment,
 * which records the pending charge as succeeded or failed exactly as the test helpers `settle` /
 * `fail` do, then returns to the page the customer came from (the checkout session's, else the collection's).
 */
@ApiExcludeController()
@Controller('checkout/sim')
@UseFilters(PageErrorFilter)
@UseGuards(CsrfGuard)
export class SimulatedBankController {
  constructor(
    @Inject(READ_STORE) private readonly store: ReadStore,
    private readonly commands: CommandBus,
    private readonly projections: ProjectionEngine,
  ) {}

  @Public()
  @Get(':gateway/pse/:charge')
  async show(@Param('gateway') gateway: string, @Param('charge') chargeId: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const locale = resolveLocale((request.query as Record<string, unknown>)?.locale);
    const { charge, collection } = await this.load(gateway, chargeId);
    const account = await this.store.get<{ name?: string }>('accounts', charge._account);
    const bankCode = (charge.additional_data as { bank_code?: string } | null)?.bank_code ?? null;
    return checkoutPages.send(
      reply,
      'bank',
      {
        charge,
        merchant: account?.name ?? null,
        bank: PSE_BANKS.find((b) => b.code === bankCode)?.name ?? bankCode,
        pending: charge.status === 'pending' && collection.status === 'processing',
        action: `/checkout/sim/${gateway}/pse/${chargeId}`,
        csrf: csrfToken(reply),
        backUrl: await this.returnPage(collection, locale),
      },
      { locale, title: checkoutPages.helpers(locale).t('bank.title'), brand: null, test: charge.is_test, path: request.url },
    );
  }

  @Public()
  @Post(':gateway/pse/:charge')
  async decide(@Param('gateway') gateway: string, @Param('charge') chargeId: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const fields = formFields(request);
    const locale = resolveLocale(fields.locale);
    const { charge, collection } = await this.load(gateway, chargeId);
    if (fields.decision !== 'approve' && fields.decision !== 'reject') throw new PageError(400, 'bad_request');
    try {
      const result = await this.commands.execute<SettleProcessingPaymentCommand, CommandResult>(
        new SettleProcessingPaymentCommand(pageContext(request, charge), collection.id, fields.decision === 'approve' ? 'succeeded' : 'failed', { by: 'simulated_gateway', charge: chargeId }),
      );
      await this.projections.waitFor(result.position);
    } catch (err) {
      // Already decided (a second click, another tab): the bank page shows the outcome.
      if (!(err instanceof ApiError) || err.status >= 500) throw err;
      return reply.redirect(withLocale(`/checkout/sim/${gateway}/pse/${chargeId}`, locale), 303);
    }
    return reply.redirect(await this.returnPage(await this.doc('collections', collection.id), locale), 303);
  }

  private async doc(collection: string, id: string): Promise<Doc> {
    const doc = await this.store.get<Doc>(collection, id);
    if (!doc || doc._deleted) throw new PageError(404, 'not_found');
    return doc;
  }

  private async load(gateway: string, chargeId: string) {
    const charge = await this.doc('charges', chargeId);
    if (charge.gateway !== gateway || charge.payment_method_type !== 'pse') throw new PageError(404, 'not_found');
    return { charge, collection: await this.doc('collections', charge.collection) };
  }

  private async returnPage(collection: Doc, locale: string): Promise<string> {
    // The checkout session that made the collection, when one did; else the collection page.
    const [session] = await this.store.find<{ id: string }>('checkout_sessions', {
      where: { _account: collection._account, is_test: collection.is_test, collection: collection.id },
      orderBy: { field: '_created', direction: 'desc' },
      limit: 1,
    });
    if (session) return withLocale(`/checkout/cs/${session.id}`, locale);
    return withLocale(`/checkout/col/${collection.id}`, locale);
  }
}
