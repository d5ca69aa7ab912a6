import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { CommandContext } from '#platform/command-context.js';
import { InvoicingSettingsOf } from './invoicing-settings-of.js';

export class GetInvoicingSettingsQuery {
  constructor(readonly owner: Pick<CommandContext, 'accountId' | 'mode'>) {}
}

/** `{object: "invoicing_settings", mode, enabled, provider, numbering, default_retentions}`, read from the settings stream. */
@QueryHandler(GetInvoicingSettingsQuery)
export class GetInvoicingSettingsHandler implements IQueryHandler<GetInvoicingSettingsQuery> {
  constructor(private readonly settings: InvoicingSettingsOf) {}

  async execute({ owner }: GetInvoicingSettingsQuery) {
    return { object: 'invoicing_settings', mode: owner.mode, ...(await this.settings.settings(owner)) };
  }
}
