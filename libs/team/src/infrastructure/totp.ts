import { randomBytes, timingSafeEqual } from 'node:crypto';
import { HOTP, Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';

/**
 * Two-factor sign-in: TOTP (RFC 6238: HMAC-SHA1, 6 digits, 30-second steps, what every
 * authenticator app reads from an `otpauth://` QR code) and single-use recovery codes.
 */
export const TOTP_PARAMETERS = { algorithm: 'SHA1', digits: 6, period: 30 } as const;
/** Steps accepted either side of the current one (clock drift, a code typed as it changed). */
export const TOTP_WINDOW = 1;

/** A new secret: 20 random bytes (RFC 4226's recommended 160 bits), base32 (32 characters, no padding). */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The `otpauth://totp/…` URI an authenticator app reads (the QR code's content). */
export function totpUri(secret: string, o: { issuer: string; label: string }): string {
  return new TOTP({ issuer: o.issuer, label: o.label, secret: Secret.fromBase32(secret), ...TOTP_PARAMETERS }).toString();
}

/** The time step (RFC 6238's T) of an instant. */
const stepAt = (now: Date) => Math.floor(now.getTime() / 1000 / TOTP_PARAMETERS.period);

const codeAtStep = (secret: Secret, step: number) => HOTP.generate({ secret, algorithm: TOTP_PARAMETERS.algorithm, digits: TOTP_PARAMETERS.digits, counter: step });

/** The code of the step `now` falls in (tests, and nothing else: the service never shows a code). */
export function totpCodeAt(secret: string, now: Date): string {
  return codeAtStep(Secret.fromBase32(secret), stepAt(now));
}

/**
 * The time step the code matches (the current one ± TOTP_WINDOW), or null. A step at or before
 * `lastStep` (the last one accepted for this secret) is refused: each code signs in once, and no
 * older code works after a newer one did. Spaces (and a hyphen) inside the code are ignored.
 */
export function verifyTotp(secret: string, code: string, now: Date, lastStep: number | null): number | null {
  const digits = String(code ?? '').replace(/[\s-]/g, '');
  if (!/^\d{6}$/.test(digits)) return null;
  const key = Secret.fromBase32(secret);
  const current = stepAt(now);
  let matched: number | null = null;
  // Every step of the window is computed and compared (in constant time), matched or not.
  for (let step = current - TOTP_WINDOW; step <= current + TOTP_WINDOW; step++) {
    const same = timingSafeEqual(Buffer.from(codeAtStep(key, step)), Buffer.from(digits));
    if (same && (lastStep === null || step > lastStep) && matched === null) matched = step;
  }
  return matched;
}

/**
 * An inline SVG of the QR code of `uri`, for a page with a strict CSP: no `style` attribute nor
 * element (qrcode 1.5 writes none, only `fill`/`stroke` presentation attributes, which CSP allows;
 * any that a later version adds are removed), `role="img"` with an accessible name (`label`: pass it
 * in the page's language) also given as its `<title>`. Sized by the page's CSS (viewBox only).
 */
export async function qrSvg(uri: string, label = 'QR code'): Promise<string> {
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
  const name = escapeXml(label);
  return svg
    .replace(/<style[\s\S]*?<\/style>/gi, '')
    .replace(/\s+style\s*=\s*(?:"[^"]*"|'[^']*')/gi, '')
    .replace(/<svg\b/, `<svg role="img" aria-label="${name}" class="qr-code"`)
    .replace(/(<svg\b[^>]*>)/, `$1<title>${name}</title>`)
    .trim();
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/**
 * Recovery codes: Crockford's base32 alphabet in lowercase (digits and letters without i, l, o, u),
 * 10 characters = 50 bits each, shown as `xxxx-xxxx-xx`. What a person types is read the Crockford
 * way: case, spaces and hyphens ignored, `o` read as 0, `i` and `l` as 1.
 */
export const RECOVERY_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
export const RECOVERY_CODE_COUNT = 10;
const RECOVERY_LENGTH = 10;

export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    // 32 symbols divide 256: each byte's low 5 bits are uniform.
    const chars = [...randomBytes(RECOVERY_LENGTH)].map((b) => RECOVERY_ALPHABET[b & 31]).join('');
    return `${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8)}`;
  });
}

/** The canonical form of a typed recovery code (`xxxx-xxxx-xx`), the form whose hash is stored. */
export function normaliseRecoveryCode(input: string): string {
  const chars = String(input ?? '')
    .toLowerCase()
    .replace(/[\s\-_.]/g, '')
    .replace(/o/g, '0')
    .replace(/[il]/g, '1');
  return chars.length === RECOVERY_LENGTH ? `${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8)}` : chars;
}
