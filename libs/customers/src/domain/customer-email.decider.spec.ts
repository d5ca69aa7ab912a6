import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { createHash } from 'node:crypto';
import { CLAIM_GRACE_MS, type CustomerEmailEvent, customerEmailDecider, customerEmailStream, legacyCustomerEmailStream } from './customer-email.decider.js';

const t0 = new Date('2026-11-23T10:00:00.000Z');
const later = (ms: number) => new Date(t0.getTime() + ms);
const email = 'ana@example.com';

const claimedBy = (customer_id: string, at = t0): CustomerEmailEvent => ({
  type: 'customer_email.claimed',
  data: { customer_id, claimed_at: at.toISOString() },
});
const releasedBy = (customer_id: string): CustomerEmailEvent => ({ type: 'customer_email.released', data: { customer_id } });

const claim = (customerId: string, now: Date, holder: { customerId: string; exists: boolean; email: string | null } | null = null) => ({
  type: 'ClaimCustomerEmail' as const,
  customerId,
  email,
  holder,
  now,
});

describe('email claim', () => {
  test('a free email is claimed', () => {
    given(customerEmailDecider).when(claim('cus_A', t0)).then([claimedBy('cus_A')]);
  });

  test('an email held by an existing customer with that email is refused with 409 naming the holder', () => {
    const error = given(customerEmailDecider, [claimedBy('cus_A')])
      .when(claim('cus_B', later(CLAIM_GRACE_MS * 10), { customerId: 'cus_A', exists: true, email: 'Ana@Example.com' }))
      .thenRejects('resource_already_exists', 'email');
    expect(error.status).toBe(409);
    expect(error.message).toBe(`A customer with email ${email} already exists: cus_A`);
  });

  test('claiming again for the holder itself records nothing', () => {
    given(customerEmailDecider, [claimedBy('cus_A')]).when(claim('cus_A', t0)).then([]);
  });

  test('a released email can be claimed by another customer', () => {
    given(customerEmailDecider, [claimedBy('cus_A'), releasedBy('cus_A')]).when(claim('cus_B', t0)).then([claimedBy('cus_B')]);
  });

  test('a fresh claim whose customer is not written yet is live (a create in flight)', () => {
    given(customerEmailDecider, [claimedBy('cus_A')])
      .when(claim('cus_B', later(CLAIM_GRACE_MS - 1), { customerId: 'cus_A', exists: false, email: null }))
      .thenRejects('resource_already_exists', 'email');
  });

  test('an old claim whose customer never got written is an orphan and is re-claimed', () => {
    const at = later(CLAIM_GRACE_MS);
    given(customerEmailDecider, [claimedBy('cus_A')])
      .when(claim('cus_B', at, { customerId: 'cus_A', exists: false, email: null }))
      .then([releasedBy('cus_A'), claimedBy('cus_B', at)]);
  });

  test('an old claim whose customer has since moved to another email is an orphan and is re-claimed', () => {
    const at = later(CLAIM_GRACE_MS);
    given(customerEmailDecider, [claimedBy('cus_A')])
      .when(claim('cus_B', at, { customerId: 'cus_A', exists: true, email: 'other@example.com' }))
      .then([releasedBy('cus_A'), claimedBy('cus_B', at)]);
  });

  test('an observation of another holder than the current one does not count (the claim changed hands meanwhile)', () => {
    given(customerEmailDecider, [claimedBy('cus_A'), releasedBy('cus_A'), claimedBy('cus_C')])
      .when(claim('cus_B', later(CLAIM_GRACE_MS * 2), { customerId: 'cus_A', exists: false, email: null }))
      .thenRejects('resource_already_exists', 'email');
    given(customerEmailDecider, [claimedBy('cus_C')]).when(claim('cus_B', later(CLAIM_GRACE_MS * 2), null)).thenRejects('resource_already_exists', 'email');
  });
});

describe('email release', () => {
  test('the holder releases its email', () => {
    given(customerEmailDecider, [claimedBy('cus_A')]).when({ type: 'ReleaseCustomerEmail', customerId: 'cus_A', now: t0 }).then([releasedBy('cus_A')]);
  });

  test("another customer's claim, or a free email, is left alone", () => {
    given(customerEmailDecider, [claimedBy('cus_A')]).when({ type: 'ReleaseCustomerEmail', customerId: 'cus_B', now: t0 }).then([]);
    given(customerEmailDecider).when({ type: 'ReleaseCustomerEmail', customerId: 'cus_A', now: t0 }).then([]);
  });
});

describe('claim streams', () => {
  const key = Buffer.alloc(32, 7);
  test('one per account, mode and email compared case-insensitively; not a public category', () => {
    const test = { accountId: 'acct_1', mode: 'test' as const };
    const s = customerEmailStream(key, test, 'Ana@Example.com');
    expect(s).toMatch(/^customeremail-[0-9a-f]{64}$/);
    expect(customerEmailStream(key, test, ' ana@example.COM ')).toBe(s);
    expect(customerEmailStream(key, { accountId: 'acct_1', mode: 'live' }, email)).not.toBe(s);
    expect(customerEmailStream(key, { accountId: 'acct_2', mode: 'test' }, email)).not.toBe(s);
  });

  test('named by an HMAC under the key: another key names it otherwise, and the former name is the plain SHA-256', () => {
    const test = { accountId: 'acct_1', mode: 'test' as const };
    const sha = createHash('sha256').update('acct_1|test|ana@example.com').digest('hex');
    expect(legacyCustomerEmailStream(test, 'Ana@Example.com')).toBe(`customeremail-${sha}`);
    expect(customerEmailStream(key, test, 'Ana@Example.com')).not.toContain(sha);
    expect(customerEmailStream(Buffer.alloc(32, 8), test, 'Ana@Example.com')).not.toBe(customerEmailStream(key, test, 'Ana@Example.com'));
  });
});
