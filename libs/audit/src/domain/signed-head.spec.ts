import { generateKeyPairSync } from 'node:crypto';
import { publicKeyId, signedBytes, signHead, verifySignedHead } from './signed-head.js';

describe('signed heads', () => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const body = { account: 'acct_1', size: 3, chain_hash: 'ab'.repeat(32), merkle_root: 'cd'.repeat(32), signed_at: '2026-01-01T00:00:00.000Z', key_id: publicKeyId(publicKey) };

  it('signs the canonical JSON of the six fields; the public key verifies it, and nothing altered', () => {
    expect(signedBytes(body).toString()).toBe(`{"account":"acct_1","chain_hash":"${'ab'.repeat(32)}","key_id":"${body.key_id}","merkle_root":"${'cd'.repeat(32)}","signed_at":"2026-01-01T00:00:00.000Z","size":3}`);
    const head = signHead(body, privateKey);
    expect(verifySignedHead(head, publicKey)).toBe(true);
    expect(verifySignedHead(head, publicKey.export({ type: 'spki', format: 'pem' }) as string)).toBe(true);
    expect(verifySignedHead({ ...head, size: 4 }, publicKey)).toBe(false);
    expect(verifySignedHead(head, generateKeyPairSync('ed25519').publicKey)).toBe(false);
    expect(publicKeyId(publicKey)).toMatch(/^[0-9a-f]{16}$/);
  });
});
