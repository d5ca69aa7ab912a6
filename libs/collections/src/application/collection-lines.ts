import { Inject, Injectable } from '@nestjs/common';
import { type Owner, ReadModels } from '#platform/read-models.js';
import { DomainError, invalidParam, missingParam, notFound } from '#shared/errors.js';
import { newId } from '#shared/ids.js';
import { toPublic } from '#projection-runtime/projection.js';
import type { PriceDoc } from '#catalog/read-models/price.read-model.js';
import type { ProductDoc } from '#catalog/read-models/product.read-model.js';
import { EXCHANGE_RATES, type ExchangeRate, type ExchangeRates } from '../exchange-rates/exchange-rates.port.js';
import type { LineInput, PriceSnapshot, ProductSnapshot } from '../domain/pricing.js';

export interface ItemRequest {
  price: string;
  quantity?: number;
  amount?: string | null;
}

/**
 * Looks up what a collection's lines need that the decider cannot: price and product snapshots (from
 * the read models) and the exchange rate of the moment from each price's currency to the collection's.
 */
@Injectable()
export class CollectionLines {
  constructor(
    private readonly readModels: ReadModels,
    @Inject(EXCHANGE_RATES) private readonly rates: ExchangeRates,
  ) {}

  /** The price and its product as items show them; 400 naming `param` when the caller cannot use it. */
  async priceSnapshot(owner: Owner, priceId: string, param: string): Promise<{ price: PriceSnapshot; product: ProductSnapshot }> {
    if (typeof priceId !== 'string' || !priceId) throw missingParam(param);
    const price = await this.readModels.find<PriceDoc>('prices', priceId, owner);
    if (!price) throw notFound('price', priceId, param);
    const product = await this.readModels.find<ProductDoc>('products', price.product_id, owner);
    if (!product) throw notFound('product', price.product_id, param);
    return { price: toPublic(price) as unknown as PriceSnapshot, product: toPublic(product) as unknown as ProductSnapshot };
  }

  async rate(from: string, to: string, at: Date, param: string): Promise<ExchangeRate | null> {
    if (from === to) return null;
    const rate = await this.rates.rate(from, to, at);
    if (!rate) throw new DomainError('currency_conversion_unavailable', `No exchange rate from ${from} to ${to} is configured`, param, 400);
    return rate;
  }

  /** Lines for new items: each price looked up, must be active; rate taken at `at`. */
  async fromRequests(owner: Owner, items: ItemRequest[], currency: string, at: Date, opts: { oneTimeOnly?: boolean } = {}): Promise<LineInput[]> {
    if (!Array.isArray(items) || items.length === 0) throw missingParam('items', 'items must have at least one item');
    if (items.length > 20) throw invalidParam('items', 'items can have at most 20 items');
    const lines: LineInput[] = [];
    for (const [i, item] of items.entries()) {
      const { price, product } = await this.priceSnapshot(owner, item.price, `items[${i}][price]`);
      if (!price.active) throw invalidParam(`items[${i}][price]`, `Price ${price.id} is not active`);
      if (opts.oneTimeOnly && price.type !== 'one_time') {
        throw invalidParam(`items[${i}][price]`, `Price ${price.id} is recurring; a standalone collection takes one_time prices (use a subscription)`);
      }
      lines.push({
        id: newId('si'),
        price,
        product,
        quantity: item.quantity ?? 1,
        amount: item.amount ?? null,
        rate: await this.rate(price.currency, currency, at, `items[${i}][price]`),
      });
    }
    return lines;
  }

  /** Lines for existing snapshots (a subscription's items): only the rates are taken afresh. */
  async fromSnapshots(
    items: Array<{ id: string; price: PriceSnapshot; product: ProductSnapshot; quantity: number; amount: string | null }>,
    currency: string,
    at: Date,
    free: (item: { price: PriceSnapshot }) => boolean = () => false,
  ): Promise<LineInput[]> {
    const lines: LineInput[] = [];
    for (const [i, item] of items.entries()) {
      lines.push({ ...item, free: free(item), rate: await this.rate(item.price.currency, currency, at, `items[${i}][price]`) });
    }
    return lines;
  }
}
