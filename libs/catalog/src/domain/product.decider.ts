import { Decider, DomainEvent } from '#shared/decider.js';
import { ownedBy } from '#shared/owner.js';
import { invalidParam, invalidState, notFound } from '#shared/errors.js';
import { type MetaData, checkMetaData, mergeMetaData } from '#shared/meta-data.js';
import { isDecimalString, parseDecimal } from '#shared/money.js';
import type { Owner } from '#shared/owner.js';

export type ProductStatus = 'active' | 'inactive';

export interface ProductInvoiceSettings {
  invoice_tax_id: string | null;
  invoice_tax_percentage: string | null;
}

/** Every field a merchant sets on a product. */
export interface ProductFields {
  name: string;
  description: string | null;
  status: ProductStatus;
  product_merchant_id: string | null;
  product_invoicing_id: string | null;
  product_shopA_id: string | null;
  product_shopB_id: string | null;
  image: string | null;
  invoice_settings: ProductInvoiceSettings;
  meta_data: MetaData;
}

export type ProductChanges = Partial<Omit<ProductFields, 'invoice_settings'>> & {
  invoice_settings?: Partial<ProductInvoiceSettings>;
};

export type ProductCommand =
  | { type: 'CreateProduct'; owner: Owner; productId: string; fields: ProductChanges & { name: string }; now: Date }
  | { type: 'UpdateProduct'; owner: Owner; productId: string; changes: ProductChanges; now: Date }
  | { type: 'DeleteProduct'; owner: Owner; productId: string; priceCount: number; now: Date };

export type ProductCreated = DomainEvent<
  'product.created',
  ProductFields & { id: string; account_id: string; is_test: boolean; created_at: string }
>;
export type ProductUpdated = DomainEvent<'product.updated', { id: string; changes: ProductChanges }>;
export type ProductDeleted = DomainEvent<'product.deleted', { id: string }>;
export type ProductEvent = ProductCreated | ProductUpdated | ProductDeleted;

export interface ProductState {
  exists: boolean;
  deleted: boolean;
  owner: Owner | null;
  fields: ProductFields | null;
}

export const productStream = (productId: string) => `product-${productId}`;

function checkFields(f: ProductChanges): void {
  if (f.name !== undefined && f.name.trim().length === 0) throw invalidParam('name', 'name must not be empty');
  const pct = f.invoice_settings?.invoice_tax_percentage;
  if (pct !== undefined && pct !== null) {
    if (!isDecimalString(pct) || parseDecimal(pct).lt(0) || parseDecimal(pct).gt(100)) {
      throw invalidParam('invoice_settings[invoice_tax_percentage]', 'invoice_tax_percentage must be a decimal string from 0 to 100');
    }
  }
  if (f.meta_data !== undefined) checkMetaData(f.meta_data);
}

export function applyProductChanges(fields: ProductFields, changes: ProductChanges): ProductFields {
  const { invoice_settings, meta_data, ...rest } = changes;
  return {
    ...fields,
    ...rest,
    invoice_settings: { ...fields.invoice_settings, ...(invoice_settings ?? {}) },
    meta_data: meta_data ? mergeMetaData(fields.meta_data, meta_data) : fields.meta_data,
  };
}

/** Products: created, updated, archived (status `inactive`), deleted while no price uses them. */
export const productDecider: Decider<ProductCommand, ProductState, ProductEvent> = {
  initialState: { exists: false, deleted: false, owner: null, fields: null },

  decide(command, state) {
    if (command.type === 'CreateProduct') {
      if (state.exists) throw invalidState(`Product ${command.productId} already exists`);
      checkFields(command.fields);
      const fields = applyProductChanges(
        {
          name: command.fields.name.trim(),
          description: null,
          status: 'active',
          product_merchant_id: null,
          product_invoicing_id: null,
          product_shopA_id: null,
          product_shopB_id: null,
          image: null,
          invoice_settings: { invoice_tax_id: null, invoice_tax_percentage: null },
          meta_data: {},
        },
        { ...command.fields, name: command.fields.name.trim() },
      );
      return [
        {
          type: 'product.created',
          data: {
            id: command.productId,
            account_id: command.owner.accountId,
            is_test: command.owner.mode === 'test',
            created_at: command.now.toISOString(),
            ...fields,
          },
        },
      ];
    }
    if (!ownedBy(state, command.owner) || state.deleted) throw notFound('product', command.productId);
    switch (command.type) {
      case 'UpdateProduct': {
        checkFields(command.changes);
        if (Object.keys(command.changes).length === 0) return [];
        return [{ type: 'product.updated', data: { id: command.productId, changes: command.changes } }];
      }
      case 'DeleteProduct': {
        if (command.priceCount > 0) {
          throw invalidState(
            `Product ${command.productId} has ${command.priceCount} price(s) and cannot be deleted; archive it with status "inactive" instead.`,
          );
        }
        return [{ type: 'product.deleted', data: { id: command.productId } }];
      }
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'product.created': {
        const { id, account_id, is_test, created_at, ...fields } = event.data;
        return { exists: true, deleted: false, owner: { accountId: account_id, mode: is_test ? 'test' : 'live' }, fields };
      }
      case 'product.updated':
        return { ...state, fields: applyProductChanges(state.fields!, event.data.changes) };
      case 'product.deleted':
        return { ...state, deleted: true };
    }
  },
};
