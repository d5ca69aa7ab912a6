import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Envelope encryption of the secrets the service must read back (TOTP secrets): each secret has its
 * own random data key (AES-256-GCM), and that data key is stored wrapped by the master key
 * (AES-256-GCM again). The master key never touches the data itself, so moving to a new master key
 * re-wraps 32-byte keys and leaves the ciphertexts alone.
 */
export interface SealedSecret {
  v: 1;
  /** Which master key wrapped the data key (first 16 hex of its SHA-256). */
  kid: string;
  /** base64 of the wrap's IV (12 bytes) ‖ the wrapped data key (32) ‖ the wrap's GCM tag (16). */
  wrapped_key: string;
  /** base64 of the data's IV (12 bytes). */
  iv: string;
  /** base64 of the data's GCM tag (16 bytes). */
  tag: string;
  /** base64 of the AES-256-GCM ciphertext of the UTF-8 plaintext. */
  ciphertext: string;
}

export interface MasterKey {
  key: Buffer;
  kid: string;
}

export class SealingError extends Error {
  override readonly name = 'SealingError';
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
/** Bound to the data's ciphertext (not the kid: a re-wrap must not touch the data). */
const DATA_AAD = Buffer.from('sealed-secret v1 data');
const wrapAad = (kid: string) => Buffer.from(`sealed-secret v1 key ${kid}`);

/** The id of a master key: the first 16 hex characters of its SHA-256 (names the key, reveals nothing of it). */
export function masterKeyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

function encrypt(key: Buffer, plaintext: Buffer, aad: Buffer) {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { iv, ciphertext, tag: cipher.getAuthTag() };
}

/** null when the tag does not verify (wrong key or altered bytes). */
function decrypt(key: Buffer, iv: Buffer, ciphertext: Buffer, tag: Buffer, aad: Buffer): Buffer | null {
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(aad);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  } catch {
    return null;
  }
}

export class SecretSealer {
  readonly kid: string;
  private readonly key: Buffer;

  constructor(key: Buffer, kid: string = masterKeyId(key)) {
    if (!Buffer.isBuffer(key) || key.length !== KEY_BYTES) throw new SealingError('The master key must be 32 bytes');
    this.key = Buffer.from(key);
    this.kid = kid;
  }

  static fromMasterKey(master: MasterKey): SecretSealer {
    return new SecretSealer(master.key, master.kid);
  }

  seal(plaintext: string): SealedSecret {
    const dataKey = randomBytes(KEY_BYTES);
    try {
      const data = encrypt(dataKey, Buffer.from(plaintext, 'utf8'), DATA_AAD);
      const wrap = encrypt(this.key, dataKey, wrapAad(this.kid));
      return {
        v: 1,
        kid: this.kid,
        wrapped_key: Buffer.concat([wrap.iv, wrap.ciphertext, wrap.tag]).toString('base64'),
        iv: data.iv.toString('base64'),
        tag: data.tag.toString('base64'),
        ciphertext: data.ciphertext.toString('base64'),
      };
    } finally {
      dataKey.fill(0);
    }
  }

  /** The plaintext; a SealingError (naming no secret) for another master key, altered or malformed data. */
  open(sealed: SealedSecret): string {
    if (!sealed || typeof sealed !== 'object' || sealed.v !== 1) throw new SealingError('Not a sealed secret of version 1');
    if (sealed.kid !== this.kid) {
      throw new SealingError(`This secret was sealed under master key ${String(sealed.kid)}, not under this service's master key ${this.kid} (MASTER_KEY or master.key changed?)`);
    }
    const fields = [sealed.wrapped_key, sealed.iv, sealed.tag, sealed.ciphertext];
    if (!fields.every((f) => typeof f === 'string')) throw new SealingError('Not a sealed secret of version 1');
    const wrapped = Buffer.from(sealed.wrapped_key, 'base64');
    const dataKey =
      wrapped.length === IV_BYTES + KEY_BYTES + TAG_BYTES
        ? decrypt(this.key, wrapped.subarray(0, IV_BYTES), wrapped.subarray(IV_BYTES, IV_BYTES + KEY_BYTES), wrapped.subarray(IV_BYTES + KEY_BYTES), wrapAad(this.kid))
        : null;
    if (!dataKey) throw new SealingError(`The data key of a sealed secret does not open with master key ${this.kid}: wrong master key, or the sealed secret was altered`);
    try {
      const plaintext = decrypt(dataKey, Buffer.from(sealed.iv, 'base64'), Buffer.from(sealed.ciphertext, 'base64'), Buffer.from(sealed.tag, 'base64'), DATA_AAD);
      if (!plaintext) throw new SealingError('A sealed secret does not open: its ciphertext, IV or tag was altered');
      return plaintext.toString('utf8');
    } finally {
      dataKey.fill(0);
    }
  }
}

const BASE64_32_BYTES = /^[A-Za-z0-9+/]{43}=$/;

/** The 32 bytes of a base64 master key, or null when it is not exactly that. */
function parseMasterKey(text: string): Buffer | null {
  const trimmed = text.trim();
  return BASE64_32_BYTES.test(trimmed) ? Buffer.from(trimmed, 'base64') : null;
}

/**
 * The master key: MASTER_KEY (base64 of 32 bytes) when set, else `<dataDir>/master.key` (the same
 * base64 text), made with mode 0600 on first use. A malformed key stops the start with an error that
 * never shows the value. Two processes starting together on empty data agree on one key: the file is
 * written whole under a temporary name, then linked into place only if no other is there yet.
 */
export function loadMasterKey(o: { env: string | undefined; dataDir: string }): { key: Buffer; kid: string; created: boolean; path: string | null } {
  if (o.env !== undefined) {
    const key = parseMasterKey(o.env);
    if (!key) throw new SealingError('MASTER_KEY must be the base64 of 32 random bytes (44 characters, e.g. the output of `openssl rand -base64 32`)');
    return { key, kid: masterKeyId(key), created: false, path: null };
  }
  const path = join(o.dataDir, 'master.key');
  let created = false;
  if (!existsSync(path)) {
    mkdirSync(o.dataDir, { recursive: true, mode: 0o700 });
    const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    writeFileSync(temporary, `${randomBytes(KEY_BYTES).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    try {
      linkSync(temporary, path);
      created = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      unlinkSync(temporary);
    }
  }
  const key = parseMasterKey(readFileSync(path, 'utf8'));
  if (!key) throw new SealingError(`${path} must hold the base64 of 32 random bytes (44 characters)`);
  return { key, kid: masterKeyId(key), created, path };
}
