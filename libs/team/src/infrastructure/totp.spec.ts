import { createHmac } from 'node:crypto';
import { newRecoveryCodes, newTotpSecret, normaliseRecoveryCode, qrSvg, RECOVERY_ALPHABET, totpCodeAt, totpUri, verifyTotp } from './totp.js';

/** RFC 6238 appendix B's SHA1 seed ("12345678901234567890"), base32. */
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

describe('TOTP', () => {
  test("codes are RFC 6238's (SHA1, 6 digits, 30 s): the RFC's test vectors", () => {
    // Appendix B gives 8 digits; the 6-digit code is their last six.
    expect(totpCodeAt(RFC_SECRET, new Date(59_000))).toBe('287082');
    expect(totpCodeAt(RFC_SECRET, new Date(1_111_111_109_000))).toBe('081804');
    expect(totpCodeAt(RFC_SECRET, new Date(2_000_000_000_000))).toBe('279037');
  });

  test('a new secret is 20 random bytes in base32', () => {
    const a = newTotpSecret();
    expect(a).toMatch(/^[A-Z2-7]{32}$/);
    expect(newTotpSecret()).not.toBe(a);
    // It computes codes as a 20-byte HMAC key would (checked against node:crypto, not the library).
    const bytes = base32Decode(a);
    expect(bytes).toHaveLength(20);
    const counter = Buffer.alloc(8);
    counter.writeBigUInt64BE(BigInt(Math.floor(1_700_000_000 / 30)));
    const mac = createHmac('sha1', bytes).update(counter).digest();
    const offset = mac[19] & 0xf;
    const expected = ((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).toString().padStart(6, '0');
    expect(totpCodeAt(a, new Date(1_700_000_000_000))).toBe(expected);
  });

  test('the URI names the issuer, the label and the parameters', () => {
    const uri = new URL(totpUri(RFC_SECRET, { issuer: 'Acme Café', label: 'maria@acme.co' }));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe('/Acme Café:maria@acme.co');
    expect(uri.searchParams.get('secret')).toBe(RFC_SECRET);
    expect(uri.searchParams.get('issuer')).toBe('Acme Café');
    expect(uri.searchParams.get('algorithm')).toBe('SHA1');
    expect(uri.searchParams.get('digits')).toBe('6');
    expect(uri.searchParams.get('period')).toBe('30');
  });

  const now = new Date('2030-05-01T12:00:10Z');
  const step = Math.floor(now.getTime() / 30_000);
  const secret = newTotpSecret();

  test("the current code, the previous step's and the next step's are accepted, returning their step", () => {
    expect(verifyTotp(secret, totpCodeAt(secret, now), now, null)).toBe(step);
    expect(verifyTotp(secret, totpCodeAt(secret, new Date(now.getTime() - 30_000)), now, null)).toBe(step - 1);
    expect(verifyTotp(secret, totpCodeAt(secret, new Date(now.getTime() + 30_000)), now, null)).toBe(step + 1);
  });

  test('a code from 90 s ago (or 60 s ahead) is refused', () => {
    expect(verifyTotp(secret, totpCodeAt(secret, new Date(now.getTime() - 90_000)), now, null)).toBeNull();
    expect(verifyTotp(secret, totpCodeAt(secret, new Date(now.getTime() + 60_000)), now, null)).toBeNull();
  });

  test('a step already used is refused, and so is any older one; a newer one still works', () => {
    const code = totpCodeAt(secret, now);
    const used = verifyTotp(secret, code, now, null);
    expect(used).toBe(step);
    expect(verifyTotp(secret, code, now, used)).toBeNull();
    expect(verifyTotp(secret, totpCodeAt(secret, new Date(now.getTime() - 30_000)), now, used)).toBeNull();
    const later = new Date(now.getTime() + 30_000);
    expect(verifyTotp(secret, totpCodeAt(secret, later), later, used)).toBe(step + 1);
  });

  test('spaces in the code are ignored; a wrong, short or non-numeric code is refused', () => {
    const code = totpCodeAt(secret, now);
    expect(verifyTotp(secret, ` ${code.slice(0, 3)} ${code.slice(3)} `, now, null)).toBe(step);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    const anyStep = [-1, 0, 1].map((d) => totpCodeAt(secret, new Date(now.getTime() + d * 30_000)));
    if (!anyStep.includes(wrong)) expect(verifyTotp(secret, wrong, now, null)).toBeNull();
    expect(verifyTotp(secret, code.slice(0, 5), now, null)).toBeNull();
    expect(verifyTotp(secret, `${code}0`, now, null)).toBeNull();
    expect(verifyTotp(secret, 'abcdef', now, null)).toBeNull();
    expect(verifyTotp(secret, '', now, null)).toBeNull();
  });
});

describe('qrSvg', () => {
  test('an accessible inline SVG without any style attribute or element', async () => {
    const svg = await qrSvg(totpUri(RFC_SECRET, { issuer: 'Acme', label: 'maria@acme.co' }), 'Código QR para tu app de autenticación <Acme>');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.endsWith('</svg>')).toBe(true);
    expect(svg).toMatch(/^<svg [^>]*role="img"/);
    expect(svg).toContain('aria-label="Código QR para tu app de autenticación &lt;Acme&gt;"');
    expect(svg).toMatch(/^<svg[^>]*><title>Código QR para tu app de autenticación &lt;Acme&gt;<\/title>/);
    expect(svg).toMatch(/viewBox="0 0 \d+ \d+"/);
    expect(svg).not.toMatch(/style/i);
    expect(svg).not.toMatch(/<script|on\w+=/i);
    expect(svg).not.toContain(RFC_SECRET); // the secret is in the modules, not in the markup
  });
});

describe('recovery codes', () => {
  test('ten distinct codes like 4k7q-9x2m-p3 from a 32-symbol alphabet without i, l, o, u (50 bits each)', () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    expect(RECOVERY_ALPHABET).toHaveLength(32);
    expect(new Set(RECOVERY_ALPHABET).size).toBe(32);
    expect(RECOVERY_ALPHABET).not.toMatch(/[ilou]/);
    expect(10 * Math.log2(RECOVERY_ALPHABET.length)).toBeGreaterThanOrEqual(50);
    for (const code of codes) expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{4}-[0-9a-hjkmnp-tv-z]{4}-[0-9a-hjkmnp-tv-z]{2}$/);
  });

  test('every symbol shows up (the draw is not stuck on part of the alphabet)', () => {
    const seen = new Set(Array.from({ length: 50 }, () => newRecoveryCodes().join('')).join('').replace(/-/g, ''));
    expect(seen.size).toBe(32);
  });

  test('normalising: a code as shown is unchanged; case, spaces, hyphens and look-alike letters do not matter', () => {
    const [code] = newRecoveryCodes();
    expect(normaliseRecoveryCode(code)).toBe(code);
    expect(normaliseRecoveryCode(` ${code.toUpperCase().replace(/-/g, ' ')} `)).toBe(code);
    expect(normaliseRecoveryCode(code.replace(/-/g, ''))).toBe(code);
    expect(normaliseRecoveryCode('4K7Q 9X2M P3')).toBe('4k7q-9x2m-p3');
    expect(normaliseRecoveryCode('o1lI-abcd-ef')).toBe('0111-abcd-ef');
    expect(normaliseRecoveryCode('123456')).not.toBe(code);
  });
});

function base32Decode(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of text) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  return Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2)));
}
