import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, UseGuards } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBasicAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { CommandContext } from '#platform/command-context.js';
import { WriteThenRead } from '#platform/write-then-read.js';
import { Ctx } from '#http/request-context.js';
import { ListQuery } from '#http/list.js';
import { TestModeOnlyGuard } from '#test-clocks/http/test-mode-only.guard.js';
import { CreateCreditNoteCommand } from '../application/create-credit-note.js';
import { GetCreditNoteQuery } from '../application/get-credit-note.js';
import { GetInvoiceQuery } from '../application/get-invoice.js';
import { GetInvoicingSettingsQuery } from '../application/get-invoicing-settings.js';
import { ListCreditNotesQuery } from '../application/list-credit-notes.js';
import { ListInvoicePaymentsQuery } from '../application/list-invoice-payments.js';
import { ListInvoicesQuery } from '../application/list-invoices.js';
import { UpdateInvoicingSettingsCommand } from '../application/update-invoicing-settings.js';
import { VoidCreditNoteCommand } from '../application/void-credit-note.js';
import { VoidInvoiceCommand } from '../application/void-invoice.js';
import { SimulatedInvoicingProvider } from '../provider/simulated-invoicing-provider.js';
import { CreateCreditNoteDto, InvoicingProviderBehaviourDto, ListInvoicesParams, PayInvoiceDto, UpdateInvoicingSettingsDto, UploadInvoiceDto } from './dto/invoice.dto.js';
import { PayInvoiceCommand } from '../application/pay-invoice.js';
import { UploadInvoiceCommand } from '../application/upload-invoice.js';
import { ApiResource } from '#http/api-resource.js';

/**
 * Fiscal invoices (issued through the account's invoicing provider) and their credit notes. An
 * invoice shows `total`, `total_paid`, `amount_credited`, `amount_due`, `status` (`open`,
 * `partially_paid`, `paid`, `void`), `due_date`, `overdue` and its fiscal `issuance` state.
 */
@ApiTags('invoices')
@ApiBasicAuth()
@ApiResource('invoices')
@Controller('v1')
export class InvoicesController {
  constructor(
    private readonly write: WriteThenRead,
    private readonly queries: QueryBus,
  ) {}

  @Get('invoices')
  @ApiOperation({ summary: 'List invoices in due-date order (nearest first; none last); filters customer, status, due_date_from, due_date_to' })
  list(@Ctx() ctx: CommandContext, @Query() params: ListInvoicesParams) {
    return this.queries.execute(new ListInvoicesQuery(ctx, params));
  }

  @Post('invoices')
  @HttpCode(200)
  @ApiOperation({ summary: 'Upload an invoice issued elsewhere (number, dates, subtotal, tax_total, total, pdf_url); opens a collect collection for its balance. A number the account already has (per mode) is 409 invoice_number_taken naming its invoice' })
  upload(@Ctx() ctx: CommandContext, @Body() body: UploadInvoiceDto) {
    return this.write.execute(new UploadInvoiceCommand(ctx, body), (r) => new GetInvoiceQuery(ctx, r.id));
  }

  @Post('invoices/:id/pay')
  @HttpCode(200)
  @ApiOperation({ summary: 'Record a payment made outside against an invoice (default: the amount due), through its collection' })
  pay(@Ctx() ctx: CommandContext, @Param('id') id: string, @Body() body: PayInvoiceDto) {
    return this.write.execute(new PayInvoiceCommand(ctx, id, body), () => new GetInvoiceQuery(ctx, id));
  }

  @Get('invoices/:id')
  @ApiOperation({ summary: 'Get an invoice (with its overdue flag)' })
  get(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    return this.queries.execute(new GetInvoiceQuery(ctx, id));
  }

  @Post('invoices/:id/void')
  @HttpCode(200)
  @ApiOperation({ summary: 'Void an invoice nothing of which is paid (409 once anything is paid: issue a credit note)' })
  void(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    return this.write.execute(new VoidInvoiceCommand(ctx, id), () => new GetInvoiceQuery(ctx, id));
  }

  @Get('invoices/:id/payments')
  @ApiOperation({ summary: 'List the payments recorded against an invoice (amount, date, collection, method)' })
  payments(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    return this.queries.execute(new ListInvoicePaymentsQuery(ctx, id));
  }

  @Post('invoices/:id/credit_notes')
  @ApiResource('credit_notes')
  @HttpCode(200)
  @ApiOperation({ summary: 'Create a credit note against an invoice (amount ≤ amount due, with a reason), issued through the provider' })
  createCreditNote(@Ctx() ctx: CommandContext, @Param('id') id: string, @Body() body: CreateCreditNoteDto) {
    return this.write.execute(new CreateCreditNoteCommand(ctx, id, body), (r) => new GetCreditNoteQuery(ctx, r.id));
  }

  @Get('invoices/:id/credit_notes')
  @ApiResource('credit_notes')
  @ApiOperation({ summary: "List an invoice's credit notes, newest first" })
  creditNotes(@Ctx() ctx: CommandContext, @Param('id') id: string, @Query() params: ListQuery) {
    return this.queries.execute(new ListCreditNotesQuery(ctx, id, params));
  }

  @Get('credit_notes/:id')
  @ApiResource('credit_notes')
  @ApiOperation({ summary: 'Get a credit note' })
  getCreditNote(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    return this.queries.execute(new GetCreditNoteQuery(ctx, id));
  }

  @Post('credit_notes/:id/void')
  @ApiResource('credit_notes')
  @HttpCode(200)
  @ApiOperation({ summary: "Void a credit note (its amount goes back on the invoice's balance; not a refund's)" })
  voidCreditNote(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    return this.write.execute(new VoidCreditNoteCommand(ctx, id), () => new GetCreditNoteQuery(ctx, id));
  }

  @Get('account/invoicing_settings')
  @ApiResource('account')
  @ApiOperation({ summary: "The account's invoicing settings in the key's mode" })
  settings(@Ctx() ctx: CommandContext) {
    return this.queries.execute(new GetInvoicingSettingsQuery(ctx));
  }

  @Post('account/invoicing_settings')
  @ApiResource('account')
  @HttpCode(200)
  @ApiOperation({ summary: "Update the account's invoicing settings (enabled, provider, numbering range, default withholding rates)" })
  updateSettings(@Ctx() ctx: CommandContext, @Body() body: UpdateInvoicingSettingsDto) {
    return this.write.execute(new UpdateInvoicingSettingsCommand(ctx, body), () => new GetInvoicingSettingsQuery(ctx));
  }
}

/** Test helper: tell the embedded invoicing provider to fail the next calls or to answer slowly (test mode only). */
@ApiTags('invoices')
@ApiBasicAuth()
@UseGuards(TestModeOnlyGuard)
@ApiResource('invoices')
@Controller('v1/test_helpers/invoicing_provider')
export class InvoicingProviderTestHelperController {
  constructor(@Inject(SimulatedInvoicingProvider) private readonly simulator: SimulatedInvoicingProvider) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Make the simulator fail the next fail_next calls and/or answer after delay_ms' })
  behave(@Ctx() ctx: CommandContext, @Body() body: InvoicingProviderBehaviourDto) {
    return { object: 'invoicing_provider_behaviour', ...this.simulator.behave(ctx.accountId, ctx.mode, body) };
  }
}
