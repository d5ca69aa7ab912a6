import { GATEWAY_METHODS, OFFLINE_GATEWAY, type SimulatedGateway } from '#payments/domain/gateways.js';
import type { PaymentInformation } from '#payments/gateways/payment-gateway.port.js';
import type { Translate } from '#web/i18n.js';

/**
 * Methods a person can pick on a page, in display order. `offline` names (free-form, e.g. a bank
 * transfer) are offered last, only where a checkout session lists them (`payment_methods.offline`).
 */
const PAGE_METHODS = ['card', 'pse', 'wallet_a', 'wallet_b', 'efecty', 'cash', 'bank_transfer', 'bank_transfer_a', 'bank_collect_a', 'quick_pay'];

/** The simulator's PSE banks (any code is accepted by the simulator; these are the ones offered). */
export const PSE_BANKS = [
  { code: '1007', name: 'Bancolombia' },
  { code: '1051', name: 'Davivienda' },
  { code: '1001', name: 'Banco de Bogotá' },
  { code: '1013', name: 'BBVA Colombia' },
  { code: '1023', name: 'Banco de Occidente' },
  { code: '1507', name: 'Nequi' },
];

export interface PageMethod {
  /** The form's value (`offline:<name>` for an offline name). */
  method: string;
  gateway: string;
  kind: 'card' | 'pse' | 'wallet' | 'voucher' | 'offline';
  /** The payment type sent (the offline name); `method` otherwise. */
  type?: string;
  /** What the page shows for an offline name (the merchant's own words). */
  label?: string;
}

/**
 * The methods the account allows: every method its configured gateways offer, each once, on the
 * gateway the collection already uses when that gateway offers it, else the first configured one.
 * `only` (a checkout session's `payment_methods`) narrows the list.
 */
export function pageMethods(configured: string[], preferredGateway: string | null, only?: { gateway: string; method: string }[]): PageMethod[] {
  const out: PageMethod[] = [];
  for (const method of PAGE_METHODS) {
    const gateways = configured.filter((g) => g in GATEWAY_METHODS && (GATEWAY_METHODS[g as SimulatedGateway] as readonly string[]).includes(method));
    const allowed = only ? gateways.filter((g) => only.some((o) => o.gateway === g && o.method === method)) : gateways;
    if (!allowed.length) continue;
    const gateway = preferredGateway && allowed.includes(preferredGateway) ? preferredGateway : allowed[0];
    out.push({ method, gateway, kind: method === 'card' ? 'card' : method === 'pse' ? 'pse' : method.startsWith('wallet_') ? 'wallet' : 'voucher' });
  }
  if (configured.includes(OFFLINE_GATEWAY)) {
    for (const o of only ?? []) {
      if (o.gateway === OFFLINE_GATEWAY && !out.some((m) => m.kind === 'offline' && m.type === o.method)) {
        out.push({ method: `offline:${o.method}`, gateway: OFFLINE_GATEWAY, kind: 'offline', type: o.method, label: o.method });
      }
    }
  }
  return out;
}

export type FieldErrors = Record<string, string>;

/**
 * The posted form as `payment_information` for the payment commands, or the fields' errors. Card data
 * goes straight to the command (the gateway tokenizes it); it is never kept, logged or sent back to
 * the page.
 */
export function paymentInformationFrom(
  fields: Record<string, string>,
  methods: PageMethod[],
  t: Translate,
): { info: PaymentInformation; errors?: undefined } | { info?: undefined; errors: FieldErrors } {
  const chosen = methods.find((m) => m.method === fields.method);
  if (!chosen) return { errors: { method: t('err.method') } };
  const base = { gateway: chosen.gateway, type: chosen.type ?? chosen.method };
  switch (chosen.kind) {
    case 'card': {
      const errors: FieldErrors = {};
      const number = (fields.card_number ?? '').replace(/[\s-]/g, '');
      if (!/^\d{12,19}$/.test(number)) errors.card_number = t('err.card_number');
      const exp = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(fields.card_exp ?? '');
      const month = exp ? Number(exp[1]) : 0;
      if (!exp || month < 1 || month > 12) errors.card_exp = t('err.card_exp');
      const cvc = (fields.card_cvc ?? '').trim();
      if (!/^\d{3,4}$/.test(cvc)) errors.card_cvc = t('err.card_cvc');
      if (Object.keys(errors).length) return { errors };
      const year = exp![2].length === 2 ? 2000 + Number(exp![2]) : Number(exp![2]);
      const holder = (fields.card_holder ?? '').trim().slice(0, 100);
      return { info: { ...base, card: { number, exp_month: month, exp_year: year, cvc, ...(holder ? { holder_name: holder } : {}) } } };
    }
    case 'pse': {
      const bank = (fields.bank_code ?? '').trim();
      if (!PSE_BANKS.some((b) => b.code === bank)) return { errors: { bank_code: t('err.bank') } };
      return { info: { ...base, bank_code: bank } };
    }
    case 'wallet': {
      const account = (fields.wallet_account ?? '').trim();
      if (!account || account.length > 100) return { errors: { wallet_account: t('err.wallet') } };
      return { info: { ...base, wallet: { account } } };
    }
    default:
      return { info: base };
  }
}

/** A decline as a person reads it. */
export function declineMessage(t: Translate, error: { code: string; message: string; extra?: Record<string, unknown> }): string {
  const decline = (error.extra?.decline_code as string | null | undefined) ?? null;
  const key = decline ?? error.code;
  const known = ['generic_decline', 'insufficient_funds', 'expired_card', 'processing_error', 'payment_not_completed'];
  if (known.includes(key)) return t(`decline.${key}`);
  if (error.code === 'card_declined') return t('decline.generic_decline');
  // Anything else (a gateway's own wording, a refusal of the collection) is in English: never shown as is.
  return t('decline.other');
}
