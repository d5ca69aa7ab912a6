import { describe, expect, test } from '@jest/globals';
import { DomainError } from '#shared/errors.js';
import type { ChargeRequest, PaymentInformation } from './payment-gateway.port.js';
import { SimulatedGateway, TEST_CARDS } from './simulated-gateway.js';

const gateway = new SimulatedGateway('https://checkout.test');
const P = 'payment_information';

const card = (number: string, over: Partial<NonNullable<PaymentInformation['card']>> = {}): PaymentInformation => ({
  gateway: 'gateway_a',
  type: 'card',
  card: { number, exp_month: 12, exp_year: 2030, cvc: '123', ...over },
});

const request = (over: Partial<ChargeRequest> = {}): ChargeRequest => ({
  idempotencyKey: 'ch_1',
  tryNumber: 1,
  accountId: 'acct_1',
  mode: 'test',
  gateway: 'gateway_a',
  method: 'card',
  token: 'simtok_approve_abc123',
  details: {},
  amount: '119000.00',
  currency: 'COP',
  description: 'Plan Pro',
  ...over,
});

async function rejection(p: Promise<unknown>): Promise<DomainError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    return e as DomainError;
  }
  throw new Error('expected a rejection');
}

describe('simulated gateway: tokenize cards', () => {
  test('a test card gives a token that carries its behaviour, and the card details without the number', async () => {
    const t = await gateway.tokenize('test', card('4242424242424242'), P);
    expect(t.token).toMatch(/^simtok_approve_[A-Za-z0-9]{16}$/);
    expect(t.card).toEqual({ brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 });
    expect(t.wallet).toBeNull();
    expect(JSON.stringify(t)).not.toContain('4242424242424242');
  });

  test.each(Object.entries(TEST_CARDS))('test card %s tokenizes as %o', async (number, { behaviour, brand }) => {
    const t = await gateway.tokenize('test', card(number), P);
    expect(t.token.startsWith(`simtok_${behaviour}_`)).toBe(true);
    expect(t.card?.brand).toBe(brand);
    expect(t.card?.last4).toBe(number.slice(-4));
  });

  test('spaces and dashes in the number are ignored', async () => {
    const t = await gateway.tokenize('test', card('4000 0000-0000 0002'), P);
    expect(t.token).toMatch(/^simtok_decline_/);
    expect(t.card?.last4).toBe('0002');
  });

  test('any other valid number approves; the brand comes from the number', async () => {
    const mastercard = await gateway.tokenize('test', card('5105105105105100'), P);
    expect(mastercard.token).toMatch(/^simtok_approve_/);
    expect(mastercard.card?.brand).toBe('mastercard');
    expect((await gateway.tokenize('test', card('378282246310005'), P)).card?.brand).toBe('amex');
    expect((await gateway.tokenize('test', card('6011111111111117'), P)).card?.brand).toBe('unknown');
  });

  test('two tokenizations of one card give two tokens', async () => {
    const [a, b] = await Promise.all([gateway.tokenize('test', card('4242424242424242'), P), gateway.tokenize('test', card('4242424242424242'), P)]);
    expect(a.token).not.toBe(b.token);
  });

  test('a live key: test card numbers are refused, real-looking ones accepted', async () => {
    const e = await rejection(gateway.tokenize('live', card('4242424242424242'), P));
    expect([e.code, e.param, e.message]).toEqual(['parameter_invalid', 'payment_information[card][number]', 'Test card numbers cannot be used with a live key']);
    await expect(gateway.tokenize('live', card('5105105105105100'), P)).resolves.toMatchObject({ card: { brand: 'mastercard' } });
  });

  test('an invalid number (Luhn, length, letters) is refused', async () => {
    for (const number of ['4242424242424241', '42424242424', '4242x24242424242', '']) {
      const e = await rejection(gateway.tokenize('test', card(number), P));
      expect([e.code, e.param, e.message]).toEqual(['parameter_invalid', 'payment_information[card][number]', 'The card number is not a valid card number']);
    }
  });

  test('an invalid expiry is refused', async () => {
    const month = await rejection(gateway.tokenize('test', card('4242424242424242', { exp_month: 13 }), P));
    expect([month.param, month.message]).toEqual(['payment_information[card][exp_month]', 'exp_month must be 1 to 12']);
    const zero = await rejection(gateway.tokenize('test', card('4242424242424242', { exp_month: 0 }), P));
    expect(zero.param).toBe('payment_information[card][exp_month]');
    const year = await rejection(gateway.tokenize('test', card('4242424242424242', { exp_year: 30 }), P));
    expect([year.param, year.message]).toEqual(['payment_information[card][exp_year]', 'exp_year must be a four-digit year']);
  });

  test('a card payment without card data is refused as missing', async () => {
    const e = await rejection(gateway.tokenize('test', { gateway: 'gateway_a', type: 'card' }, P));
    expect([e.code, e.param, e.message]).toEqual(['parameter_missing', 'payment_information[card]', 'payment_information[card] is required for card payments']);
  });

  test('methods that cannot be tokenized are refused', async () => {
    const e = await rejection(gateway.tokenize('test', { gateway: 'gateway_a', type: 'pse', bank_code: '1007' }, P));
    expect([e.code, e.param, e.message]).toEqual(['parameter_invalid', 'payment_information[type]', 'pse payments cannot be stored']);
  });
});

describe('simulated gateway: tokens from hosted fields, and wallets', () => {
  test('a token of this gateway is taken as it is; anything else is refused', async () => {
    expect(await gateway.tokenize('test', { gateway: 'gateway_a', type: 'card', token: 'simtok_flaky_Ab12' }, P)).toEqual({ token: 'simtok_flaky_Ab12', card: null, wallet: null, fingerprint: null });
    const e = await rejection(gateway.tokenize('test', { gateway: 'gateway_a', type: 'card', token: 'tok_visa' }, P));
    expect([e.code, e.param, e.message]).toEqual(['parameter_invalid', 'payment_information[token]', 'token is not a token of this gateway']);
    await rejection(gateway.tokenize('test', { gateway: 'gateway_a', type: 'card', token: 'simtok_steal_Ab12' }, P));
  });

  test('wallet accounts ending in 0002 decline, in 9995 lack funds, others approve', async () => {
    const wallet = (account: string) => gateway.tokenize('test', { gateway: 'gateway_a', type: 'wallet_a', wallet: { account } }, P);
    expect((await wallet('+573000000002')).token).toMatch(/^simtok_decline_/);
    expect((await wallet('+573000009995')).token).toMatch(/^simtok_insufficient_funds_/);
    const ok = await wallet(' ana@example.com ');
    expect(ok.token).toMatch(/^simtok_approve_/);
    expect(ok).toMatchObject({ card: null, wallet: { account_last4: '.com' } });
  });

  test('a wallet payment needs its account', async () => {
    const e = await rejection(gateway.tokenize('test', { gateway: 'gateway_a', type: 'wallet_b' }, P));
    expect([e.code, e.param, e.message]).toEqual(['parameter_invalid', 'payment_information[wallet][account]', 'payment_information[wallet][account] is required for wallet_b payments']);
    await rejection(gateway.tokenize('test', { gateway: 'gateway_a', type: 'wallet_b', wallet: { account: '123' } }, P));
  });
});

describe('simulated gateway: charge', () => {
  test('an approving token succeeds; the reference depends only on the idempotency key', async () => {
    const first = await gateway.charge(request());
    expect(first).toEqual({ status: 'succeeded', gateway_reference: expect.stringMatching(/^sim_[0-9a-f]{16}$/) });
    expect(await gateway.charge(request())).toEqual(first);
    expect((await gateway.charge(request({ idempotencyKey: 'ch_2' }))).gateway_reference).not.toBe(first.gateway_reference);
  });

  test('declining tokens fail with their codes, not retryable', async () => {
    expect(await gateway.charge(request({ token: 'simtok_decline_x1' }))).toEqual({
      status: 'failed',
      gateway_reference: expect.stringMatching(/^sim_/),
      failure_code: 'card_declined',
      failure_message: 'The card was declined.',
      decline_code: 'generic_decline',
      retryable: false,
    });
    expect(await gateway.charge(request({ token: 'simtok_insufficient_funds_x1' }))).toMatchObject({
      status: 'failed',
      failure_code: 'card_declined',
      failure_message: 'The card has insufficient funds.',
      decline_code: 'insufficient_funds',
      retryable: false,
    });
    expect(await gateway.charge(request({ token: 'simtok_expired_card_x1' }))).toMatchObject({
      status: 'failed',
      failure_code: 'expired_card',
      failure_message: 'The card has expired.',
      decline_code: 'expired_card',
      retryable: false,
    });
  });

  test('a flaky token fails retryably on the first try and succeeds on the retry', async () => {
    expect(await gateway.charge(request({ token: 'simtok_flaky_x1', tryNumber: 1 }))).toMatchObject({
      status: 'failed',
      failure_code: 'processing_error',
      failure_message: 'The gateway could not process the charge; retry.',
      decline_code: null,
      retryable: true,
    });
    expect(await gateway.charge(request({ token: 'simtok_flaky_x1', tryNumber: 2, idempotencyKey: 'ch_2' }))).toMatchObject({ status: 'succeeded' });
  });

  test('a token this gateway did not make fails', async () => {
    expect(await gateway.charge(request({ token: 'tok_visa' }))).toMatchObject({ status: 'failed', failure_code: 'invalid_token', retryable: false });
  });

  test('every tokenized test card charges as its behaviour says', async () => {
    const expected = { approve: 'succeeded', decline: 'failed', insufficient_funds: 'failed', expired_card: 'failed', flaky: 'failed' };
    for (const [number, { behaviour }] of Object.entries(TEST_CARDS)) {
      const { token } = await gateway.tokenize('test', card(number), P);
      expect((await gateway.charge(request({ token }))).status).toBe(expected[behaviour]);
    }
  });
});

describe('simulated gateway: methods that need the customer', () => {
  test('pse answers pending with a redirect to the simulator page', async () => {
    expect(await gateway.charge(request({ method: 'pse', token: null, details: { bank_code: '1007' } }))).toEqual({
      status: 'pending',
      gateway_reference: expect.stringMatching(/^sim_/),
      additional_data: { type: 'redirect', redirect_url: 'https://checkout.test/sim/gateway_a/pse/ch_1', bank_code: '1007' },
    });
    const noBank = await gateway.charge(request({ method: 'pse', token: null }));
    expect(noBank.status === 'pending' && noBank.additional_data.bank_code).toBeNull();
  });

  test('cash methods answer pending with a voucher: a ten-digit reference derived from the charge id', async () => {
    const outcome = await gateway.charge(request({ gateway: 'gateway_b', method: 'efecty', token: null }));
    expect(outcome.status).toBe('pending');
    const data = outcome.status === 'pending' ? outcome.additional_data : {};
    expect(data).toMatchObject({ type: 'voucher', method: 'efecty', amount: '119000.00', currency: 'COP' });
    expect(data.reference).toMatch(/^\d{10}$/);
    expect(data.instructions).toBe(`Pay 119000.00 COP with efecty quoting reference ${data.reference}.`);
    const again = await gateway.charge(request({ gateway: 'gateway_b', method: 'efecty', token: null }));
    expect(again).toEqual(outcome);
  });

  test('offline answers pending with instructions for the merchant to record the payment', async () => {
    const outcome = await gateway.charge(request({ gateway: 'offline', method: 'Transferencia Bancolombia', token: null }));
    const data = outcome.status === 'pending' ? outcome.additional_data : {};
    expect(data).toMatchObject({ type: 'instructions', method: 'Transferencia Bancolombia' });
    expect(data.instructions).toBe(
      `Pay 119000.00 COP by Transferencia Bancolombia quoting reference ${data.reference}; the merchant records the payment.`,
    );
  });
});

describe('simulated gateway: refund', () => {
  test('always succeeds, with a reference that depends only on the idempotency key', async () => {
    const refund = { idempotencyKey: 're_1', gateway: 'gateway_a', gateway_reference: 'sim_1', amount: '1000.00', currency: 'COP' };
    const first = await gateway.refund(refund);
    expect(first).toEqual({ status: 'succeeded', gateway_reference: expect.stringMatching(/^simre_[0-9a-f]{16}$/) });
    expect(await gateway.refund(refund)).toEqual(first);
    expect((await gateway.refund({ ...refund, idempotencyKey: 're_2' })).gateway_reference).not.toBe(first.gateway_reference);
  });
});
