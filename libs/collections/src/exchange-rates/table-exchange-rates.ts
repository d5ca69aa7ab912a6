import { Money } from '#shared/money.js';
import type { ExchangeRate, ExchangeRates } from './exchange-rates.port.js';

/** Rates to COP used when EXCHANGE_RATES is not set (indicative; configure real ones). */
export const DEFAULT_RATES = 'USD:COP=4000,EUR:COP=4400,MXN:COP=230,BRL:COP=780,PEN:COP=1080,CLP:COP=4.3';

/**
 * The embedded adapter: a configured table `FROM:TO=rate,…` (env `EXCHANGE_RATES`). The inverse of
 * each pair is derived (1 / rate, 12 significant digits); a pair through neither is unknown.
 */
export class TableExchangeRates implements ExchangeRates {
  private readonly table = new Map<string, string>();

  constructor(spec: string = DEFAULT_RATES) {
    for (const entry of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
      const m = /^([A-Za-z]{3}):([A-Za-z]{3})=(\d+(\.\d+)?)$/.exec(entry);
      if (!m || new Money(m[3]).lte(0)) throw new Error(`EXCHANGE_RATES: cannot read "${entry}" (expected FROM:TO=rate)`);
      const [from, to, rate] = [m[1].toUpperCase(), m[2].toUpperCase(), m[3]];
      this.table.set(`${from}:${to}`, new Money(rate).toFixed());
      if (!this.table.has(`${to}:${from}`)) this.table.set(`${to}:${from}`, new Money(1).div(rate).toSignificantDigits(12).toFixed());
    }
  }

  async rate(from: string, to: string, at: Date): Promise<ExchangeRate | null> {
    const f = from.toUpperCase();
    const t = to.toUpperCase();
    if (f === t) return { from: f, to: t, rate: '1', as_of: at.toISOString(), source: 'identity' };
    const rate = this.table.get(`${f}:${t}`);
    return rate === undefined ? null : { from: f, to: t, rate, as_of: at.toISOString(), source: 'table' };
  }
}
