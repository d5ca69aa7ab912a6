import { type PaymentLinkCreated, type PaymentLinkEvent, type PaymentLinkFields, applyPaymentLinkEvent } from '#checkout/domain/payment-link.decider.js';
import type { StorefrontCreated, StorefrontEvent, StorefrontFields } from '#checkout/domain/storefront.decider.js';
import { newOwnedDoc, TENANT_INDEXES } from '#platform/owned-doc.js';
import type { Projection } from '#projection-runtime/projection.js';
import type { PaymentLinkDoc } from '#checkout/read-models/payment-link.read-model.js';
import type { StorefrontDoc } from '#checkout/read-models/storefront.read-model.js';

function flat(fields: PaymentLinkFields): Record<string, unknown> {
  const { settings, ...rest } = fields;
  return { ...rest, ...settings, _settings: settings };
}

/** Payment links as GET /v1/payment_links serves them. */
export const paymentLinksProjection: Projection<PaymentLinkDoc> = {
  name: 'payment_links',
  category: 'paymentlink',
  object: 'payment_link',
  collection: 'payment_links',
  collections: [{ name: 'payment_links', indexes: [...TENANT_INDEXES, { fields: ['_account', 'is_test', 'active', '_created'] }] }],
  documentIds: (e) => (e.streamId.startsWith('paymentlink-') ? [e.streamId.slice('paymentlink-'.length)] : []),
  project(doc, event) {
    const e = event as unknown as PaymentLinkEvent;
    if (e.type === 'payment_link.created') {
      const { account_id, created_at, id, is_test, ...fields }: PaymentLinkCreated['data'] = e.data;
      return newOwnedDoc('payment_link', { id, account_id, is_test, created_at }, flat(fields)) as unknown as PaymentLinkDoc;
    }
    if (!doc) return doc;
    const current = { ...(doc as unknown as PaymentLinkFields), settings: doc._settings };
    return { ...doc, ...flat(applyPaymentLinkEvent(current, e)) } as PaymentLinkDoc;
  },
};


/** Storefronts as GET /v1/storefronts serves them. */
export const storefrontsProjection: Projection<StorefrontDoc> = {
  name: 'storefronts',
  category: 'storefront',
  object: 'storefront',
  collection: 'storefronts',
  collections: [{ name: 'storefronts', indexes: TENANT_INDEXES }],
  documentIds: (e) => (e.streamId.startsWith('storefront-') ? [e.streamId.slice('storefront-'.length)] : []),
  project(doc, event) {
    const e = event as unknown as StorefrontEvent;
    const flatten = (f: StorefrontFields) => {
      const { settings, ...rest } = f;
      return { ...rest, ...settings, _settings: settings };
    };
    if (e.type === 'storefront.created') {
      const { account_id, created_at, id, is_test, ...fields }: StorefrontCreated['data'] = e.data;
      return newOwnedDoc('storefront', { id, account_id, is_test, created_at }, flatten(fields)) as unknown as StorefrontDoc;
    }
    if (!doc) return doc;
    const current = { ...(doc as unknown as StorefrontFields), settings: doc._settings };
    return { ...doc, ...flatten({ ...current, ...e.data.changes }) } as StorefrontDoc;
  },
};
