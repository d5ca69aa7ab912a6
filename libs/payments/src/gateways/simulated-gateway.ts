import { createHash } from 'node:crypto';
import { DomainError, invalidParam } from '#shared/errors.js';
import { randomBase62 } from '#shared/ids.js';
import { isTokenizable } from '../domain/gateways.js';
import type { ChargeOutcome, ChargeRequest, PaymentGateway, PaymentInformation, RefundRequest, Tokenized } from './payment-gateway.port.js';

/** What a simulated token does when charged; encoded in the token itself, so outcomes are deterministic. */
export type SimulatedBehaviour = 'approve' | 'decline' | 'insufficient_funds' | 'expired_card' | 'flaky';

/** The simulator's well-known test cards (README lists them). Any other valid number approves. */
export const TEST_CARDS: Record<string, { behaviour: SimulatedBehaviour; brand: string }> = {
  '4242424242424242': { behaviour: 'approve', brand: 'visa' },
  '5555555555554444': { behaviour: 'approve', brand: 'mastercard' },
  '4000000000000002': { behaviour: 'decline', brand: 'visa' },
  '4000000000009995': { behaviour: 'insufficient_funds', brand: 'visa' },
  '4000000000000069': { behaviour: 'expired_card', brand: 'visa' },
  '4000000000000119': { behaviour: 'flaky', brand: 'visa' },
};

/** Wallet accounts ending in these digits decline / lack funds; any other wallet approves. */
const WALLET_RULES: Array<[string, SimulatedBehaviour]> = [
  ['0002', 'decline'],
  ['9995', 'insufficient_funds'],
];

function luhn(number: string): boolean {
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let d = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

function brandOf(number: string): string {
  if (number.startsWith('4')) return 'visa';
  if (/^5[1-5]/.test(number)) return 'mastercard';
  if (/^3[47]/.test(number)) return 'amex';
  return 'unknown';
}

const fingerprintOf = (data: string) => createHash('sha256').update(`simulator:${data}`).digest('hex').slice(0, 16);

const reference = (key: string, prefix: string) => `${prefix}_${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;

/** Ten digits derived from the charge id: the payment reference a cash/transfer voucher shows. */
const voucher = (key: string) => String(parseInt(createHash('sha256').update(key).digest('hex').slice(0, 12), 16) % 1e10).padStart(10, '0');

/**
 * The built-in gateway simulator: deterministic, no network, no money. Tokens carry their behaviour
 * (`simtok_<behaviour>_<random>`), so charging a token always gives the same outcome, and a charge
 * repeated with the same idempotency key gives the same answer (the outcome depends only on the
 * request). Methods that need customer action answer `pending` with redirect or voucher data;
 * they are settled through the test helper endpoints.
 */
export class SimulatedGateway implements PaymentGateway {
  constructor(private readonly checkoutUrl: string) {}

  async tokenize(mode: 'test' | 'live', info: PaymentInformation, param: string): Promise<Tokenized> {
    if (!isTokenizable(info.type)) throw invalidParam(`${param}[type]`, `${info.type} payments cannot be stored`);
    if (info.token !== undefined) {
      if (!/^simtok_(approve|decline|insufficient_funds|expired_card|flaky)_[A-Za-z0-9]+$/.test(info.token)) {
        throw invalidParam(`${param}[token]`, 'token is not a token of this gateway');
      }
      return { token: info.token, card: null, wallet: null, fingerprint: null };
    }
    if (info.type === 'card') {
      const card = info.card;
      if (!card) throw new DomainError('parameter_missing', `${param}[card] is required for card payments`, `${param}[card]`);
      const number = String(card.number ?? '').replace(/[\s-]/g, '');
      if (!/^\d{12,19}$/.test(number) || !luhn(number)) throw invalidParam(`${param}[card][number]`, 'The card number is not a valid card number');
      if (mode === 'live' && TEST_CARDS[number]) throw invalidParam(`${param}[card][number]`, 'Test card numbers cannot be used with a live key');
      const month = Number(card.exp_month);
      const year = Number(card.exp_year);
      if (!Number.isInteger(month) || month < 1 || month > 12) throw invalidParam(`${param}[card][exp_month]`, 'exp_month must be 1 to 12');
      if (!Number.isInteger(year) || year < 2000 || year > 2100) throw invalidParam(`${param}[card][exp_year]`, 'exp_year must be a four-digit year');
      const known = TEST_CARDS[number];
      const behaviour = known?.behaviour ?? 'approve';
      return {
        token: `simtok_${behaviour}_${randomBase62(16)}`,
        card: { brand: known?.brand ?? brandOf(number), last4: number.slice(-4), exp_month: month, exp_year: year },
        wallet: null,
        fingerprint: fingerprintOf(`card:${number}`),
      };
    }
    const account = String(info.wallet?.account ?? '').trim();
    if (account.length < 4 || account.length > 100) {
      throw invalidParam(`${param}[wallet][account]`, `${param}[wallet][account] is required for ${info.type} payments`);
    }
    const behaviour = WALLET_RULES.find(([suffix]) => account.endsWith(suffix))?.[1] ?? 'approve';
    return { token: `simtok_${behaviour}_${randomBase62(16)}`, card: null, wallet: { account_last4: account.slice(-4) }, fingerprint: fingerprintOf(`${info.type}:${account}`) };
  }

  async charge(request: ChargeRequest): Promise<ChargeOutcome> {
    const ref = reference(request.idempotencyKey, 'sim');
    if (request.token === null) return { status: 'pending', gateway_reference: ref, additional_data: this.customerAction(request) };
    const behaviour = /^simtok_([a-z_]+)_[A-Za-z0-9]+$/.exec(request.token)?.[1] as SimulatedBehaviour | undefined;
    const fail = (failure_code: string, failure_message: string, decline_code: string | null, retryable = false): ChargeOutcome => ({
      status: 'failed',
      gateway_reference: ref,
      failure_code,
      failure_message,
      decline_code,
      retryable,
    });
    switch (behaviour) {
      case 'approve':
        return { status: 'succeeded', gateway_reference: ref };
      case 'decline':
        return fail('card_declined', 'The card was declined.', 'generic_decline');
      case 'insufficient_funds':
        return fail('card_declined', 'The card has insufficient funds.', 'insufficient_funds');
      case 'expired_card':
        return fail('expired_card', 'The card has expired.', 'expired_card');
      case 'flaky':
        // A technical failure on the first try of a transaction; the retry goes through.
        return request.tryNumber === 1 ? fail('processing_error', 'The gateway could not process the charge; retry.', null, true) : { status: 'succeeded', gateway_reference: ref };
      default:
        return fail('invalid_token', 'The payment method token is not valid at this gateway.', null);
    }
  }

  async refund(request: RefundRequest) {
    return { status: 'succeeded' as const, gateway_reference: reference(request.idempotencyKey, 'simre') };
  }

  /** Redirect or voucher data shown to the customer for methods that need their action. */
  private customerAction(request: ChargeRequest): Record<string, unknown> {
    const id = request.idempotencyKey;
    if (request.method === 'pse') {
      return {
        type: 'redirect',
        redirect_url: `${this.checkoutUrl}/sim/${request.gateway}/pse/${id}`,
        bank_code: request.details.bank_code ?? null,
      };
    }
    if (request.gateway === 'offline') {
      return {
        type: 'instructions',
        method: request.method,
        reference: voucher(id),
        instructions: `Pay ${request.amount} ${request.currency} by ${request.method} quoting reference ${voucher(id)}; the merchant records the payment.`,
      };
    }
    return {
      type: 'voucher',
      method: request.method,
      reference: voucher(id),
      amount: request.amount,
      currency: request.currency,
      instructions: `Pay ${request.amount} ${request.currency} with ${request.method} quoting reference ${voucher(id)}.`,
    };
  }
}
