import { newLinkToken, newSessionId, parseLinkToken, secretMatches, sha256Hex } from './tokens.js';

describe('link tokens', () => {
  test('an invitation token is <invite_id>.<43 base64url characters> and parses back to its parts', () => {
    const t = newLinkToken('invite');
    expect(t.id).toMatch(/^invite_[0-9A-Za-z]{24}$/);
    expect(t.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(t.secret, 'base64url')).toHaveLength(32);
    expect(t.token).toBe(`${t.id}.${t.secret}`);
    expect(parseLinkToken(t.token)).toEqual({ id: t.id, secret: t.secret });
  });

  test('a reset token has the rst_ prefix; two tokens never share a secret', () => {
    const a = newLinkToken('rst');
    const b = newLinkToken('rst');
    expect(a.id).toMatch(/^rst_/);
    expect(parseLinkToken(a.token)?.id).toBe(a.id);
    expect(a.secret).not.toBe(b.secret);
    expect(a.id).not.toBe(b.id);
  });

  test('anything not shaped like a token is null', () => {
    const { id, secret } = newLinkToken('invite');
    for (const bad of ['', id, `${id}.`, `.${secret}`, `${id}.${secret}x`, `${id}.${secret.slice(1)}`, `inv_${id.slice(7)}.${secret}`, `cus_${id.slice(7)}.${secret}`, `${id}.${secret.slice(0, -1)}=`, `${id}.${secret}.${secret}`, ` ${id}.${secret}`]) {
      expect(parseLinkToken(bad)).toBeNull();
    }
    expect(parseLinkToken(undefined)).toBeNull();
    expect(parseLinkToken(42)).toBeNull();
  });
});

describe('hashes', () => {
  test('sha256Hex is the SHA-256 of the UTF-8 text in hex', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('ñ')).toBe('024bb90888ca89a15a19e9bdd8c712bfb070465fce1ef25e43c170ea44fc5e5f'); // UTF-8 c3 b1, not Latin-1
  });

  test('secretMatches: the secret whose hash is stored, and only it', () => {
    const { secret } = newLinkToken('rst');
    const hash = sha256Hex(secret);
    expect(secretMatches(secret, hash)).toBe(true);
    expect(secretMatches(secret, hash.toUpperCase())).toBe(true);
    expect(secretMatches(`${secret}x`, hash)).toBe(false);
    expect(secretMatches(secret, sha256Hex('other'))).toBe(false);
    expect(secretMatches(secret, hash.slice(1))).toBe(false);
    expect(secretMatches(secret, '')).toBe(false);
    expect(secretMatches(secret, 'z'.repeat(64))).toBe(false);
  });
});

test('session ids are 32 random bytes in base64url, never repeated', () => {
  const ids = Array.from({ length: 1000 }, () => newSessionId());
  expect(ids.every((id) => /^[A-Za-z0-9_-]{43}$/.test(id) && Buffer.from(id, 'base64url').length === 32)).toBe(true);
  expect(new Set(ids).size).toBe(ids.length);
});
