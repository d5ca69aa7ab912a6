import type { RecordedEvent } from '../libs/event-store/src/event-store.port.js';
import { AccountCreated } from '../libs/accounts/src/domain/account.decider.js';
import { formatCreatedDate } from '../libs/shared/src/dates.js';
import type { Doc, Projection } from './runtime/projection.js';

export interface AccountDoc extends Doc {
  object: 'account';
  name: string;
  created_date: string;
}

/** Merchant accounts (internal: the API does not list accounts). */
export const accountsProjection: Projection<AccountDoc> = {
  name: 'accounts',
  collection: 'accounts',
  collections: [{ name: 'accounts', indexes: [] }],
  documentIds: (e) => (e.type === 'account.created' ? [String(e.data.account_id)] : []),
  project(doc, event: RecordedEvent) {
    if (event.type !== 'account.created') return doc;
    const data = event.data as AccountCreated['data'];
    return { id: data.account_id, object: 'account', name: data.name, created_date: formatCreatedDate(new Date(data.created_at)) };
  },
};
