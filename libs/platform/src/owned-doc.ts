import type { OwnedDoc } from './read-models.js';
import { formatCreatedDate } from '#shared/dates.js';

/** The index every tenant-owned collection has: lists filter by account, mode, deletion, sort by creation. */
export const TENANT_INDEXES = [{ fields: ['_account', 'is_test', '_deleted', '_created'] }];

/** What every `<resource>.created` event carries about ownership and time. */
export interface CreatedEnvelope {
  id: string;
  account_id: string;
  is_test: boolean;
  created_at: string;
}

/**
 * A new tenant-owned document: `id`, `object`, the resource's fields, `created_date`, `is_test`,
 * and the internal fields lists and ownership checks use.
 */
export function newOwnedDoc<F extends object>(object: string, envelope: CreatedEnvelope, fields: F): OwnedDoc & F & { object: string; created_date: string } {
  return {
    id: envelope.id,
    object,
    ...fields,
    created_date: formatCreatedDate(new Date(envelope.created_at)),
    is_test: envelope.is_test,
    _account: envelope.account_id,
    _created: envelope.created_at,
    _deleted: false,
  };
}
