/** A conversion rate as used on a collection: 1 `from` = `rate` `to`, as of `as_of`. */
export interface ExchangeRate {
  from: string;
  to: string;
  /** Decimal string. */
  rate: string;
  /** ISO 8601: when the rate was taken. */
  as_of: string;
  source: string;
}

/** The exchange-rate port: the rate of the moment between two currencies, or null when unknown. */
export interface ExchangeRates {
  rate(from: string, to: string, at: Date): Promise<ExchangeRate | null>;
}

export const EXCHANGE_RATES = Symbol('ExchangeRates');
