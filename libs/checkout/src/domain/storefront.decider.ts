import { Decider, DomainEvent } from '#shared/decider.js';
import { DomainError, invalidParam, missingParam, notFound } from '#shared/errors.js';
import { type MetaData, checkMetaData, mergeMetaData } from '#shared/meta-data.js';
import { type Owner, ownedBy } from '#shared/owner.js';
import { MESSAGES } from '#subscriptions/domain/subscription.decider.js';
import { CTA_TEXTS, type CtaText } from './checkout-session.types.js';
import type { LinkItem, LinkSessionSettings } from './payment-link.decider.js';

/**
 * A storefront: a public page (`{checkout_url}/sf/<id>`) listing several products and prices of the
 * account; choosing one opens a checkout session for it. Its recurring prices share one frequency
 * (the spec's rule for a link, storefront or subscription).
 */
export interface StorefrontFields {
  name: string;
  active: boolean;
  url: string;
  items: Array<Omit<LinkItem, 'quantity'>>;
  cta_text: CtaText | null;
  settings: LinkSessionSettings;
  meta_data: MetaData;
}

export type StorefrontCommand =
  | { type: 'CreateStorefront'; owner: Owner; storefrontId: string; url: string; name: string; items: StorefrontFields['items']; ctaText?: string; active?: boolean; settings: LinkSessionSettings; metaData?: MetaData; now: Date }
  | { type: 'UpdateStorefront'; owner: Owner; storefrontId: string; changes: { name?: string; active?: boolean; items?: StorefrontFields['items']; cta_text?: string; meta_data?: MetaData; settings?: LinkSessionSettings }; now: Date };

export type StorefrontCreated = DomainEvent<'storefront.created', StorefrontFields & { id: string; account_id: string; is_test: boolean; created_at: string }>;
export type StorefrontUpdated = DomainEvent<'storefront.updated', { id: string; changes: Partial<StorefrontFields> }>;
export type StorefrontEvent = StorefrontCreated | StorefrontUpdated;

export interface StorefrontState {
  exists: boolean;
  owner: Owner | null;
  fields: StorefrontFields | null;
}

export const storefrontStream = (id: string) => `storefront-${id}`;

function checkItems(items: StorefrontFields['items']) {
  if (!Array.isArray(items) || items.length === 0) throw missingParam('items', 'items must have at least one price');
  if (items.length > 50) throw invalidParam('items', 'items can have at most 50 prices');
  const seen = new Set<string>();
  items.forEach((it, i) => {
    if (!it.price.active) throw invalidParam(`items[${i}][price]`, `Price ${it.price.id} is not active`);
    if (seen.has(it.price.id)) throw invalidParam(`items[${i}][price]`, `Price ${it.price.id} is listed twice`);
    seen.add(it.price.id);
  });
  const recurring = items.filter((it) => it.price.type === 'recurring');
  const first = recurring[0]?.price;
  if (first && recurring.some((it) => it.price.billing_period !== first.billing_period || it.price.billing_interval !== first.billing_interval)) {
    throw invalidParam('items', MESSAGES.sameFrequency);
  }
}

function checkName(v: unknown) {
  if (typeof v !== 'string' || v.trim() === '' || v.length > 200) throw invalidParam('name', 'name must be 1 to 200 characters long');
}

function checkCta(v: unknown): CtaText | null {
  if (v === undefined || v === null) return null;
  if (!(CTA_TEXTS as readonly unknown[]).includes(v)) throw invalidParam('cta_text', `cta_text must be one of ${CTA_TEXTS.join(', ')}`);
  return v as CtaText;
}

export const storefrontDecider: Decider<StorefrontCommand, StorefrontState, StorefrontEvent> = {
  initialState: { exists: false, owner: null, fields: null },

  decide(command, state) {
    if (command.type === 'CreateStorefront') {
      if (state.exists) throw new DomainError('resource_already_exists', `Storefront ${command.storefrontId} already exists`, null, 409);
      checkName(command.name);
      checkItems(command.items);
      if (command.active !== undefined && typeof command.active !== 'boolean') throw invalidParam('active', 'active must be a boolean');
      return [
        {
          type: 'storefront.created',
          data: {
            id: command.storefrontId,
            account_id: command.owner.accountId,
            is_test: command.owner.mode === 'test',
            created_at: command.now.toISOString(),
            name: command.name.trim(),
            active: command.active ?? true,
            url: command.url,
            items: command.items,
            cta_text: checkCta(command.ctaText),
            settings: command.settings,
            meta_data: checkMetaData(command.metaData) ?? {},
          },
        },
      ];
    }
    if (!ownedBy(state, command.owner)) throw notFound('storefront', command.storefrontId);
    const f = state.fields!;
    const ch = command.changes;
    const changes: Partial<StorefrontFields> = {};
    if (ch.name !== undefined) {
      checkName(ch.name);
      changes.name = ch.name.trim();
    }
    if (ch.active !== undefined) {
      if (typeof ch.active !== 'boolean') throw invalidParam('active', 'active must be a boolean');
      changes.active = ch.active;
    }
    if (ch.items !== undefined) {
      checkItems(ch.items);
      changes.items = ch.items;
    }
    if (ch.cta_text !== undefined) changes.cta_text = checkCta(ch.cta_text);
    if (ch.meta_data !== undefined) changes.meta_data = mergeMetaData(f.meta_data, checkMetaData(ch.meta_data)!);
    if (ch.settings !== undefined) changes.settings = { ...f.settings, ...ch.settings };
    if (Object.keys(changes).length === 0) return [];
    return [{ type: 'storefront.updated', data: { id: command.storefrontId, changes } }];
  },

  evolve(state, event) {
    if (event.type === 'storefront.created') {
      const { id, account_id, is_test, created_at, ...fields } = event.data;
      return { exists: true, owner: { accountId: account_id, mode: is_test ? 'test' : 'live' }, fields };
    }
    return { ...state, fields: { ...state.fields!, ...event.data.changes } };
  },
};
