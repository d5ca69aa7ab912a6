import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { type Owner, ReadModels } from '#platform/read-models.js';
import type { CreditNoteDoc } from '../read-models/invoice.read-model.js';

export class GetCreditNoteQuery {
  constructor(
    readonly owner: Owner,
    readonly id: string,
  ) {}
}

@QueryHandler(GetCreditNoteQuery)
export class GetCreditNoteHandler implements IQueryHandler<GetCreditNoteQuery, CreditNoteDoc> {
  constructor(private readonly readModels: ReadModels) {}

  execute({ owner, id }: GetCreditNoteQuery): Promise<CreditNoteDoc> {
    return this.readModels.get<CreditNoteDoc>('credit_notes', 'credit_note', id, owner);
  }
}
