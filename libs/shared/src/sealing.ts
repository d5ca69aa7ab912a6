import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

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
  /** The id of the master key that seals (and re-wraps to). */
  readonly kid: string;
  private readonly key: Buffer;
  /** Every master key this sealer opens with, by id: the current one and the previous ones (a re-wrap under way). */
  private readonly ring = new Map<string, Buffer>();

  constructor(key: Buffer, kid: string = masterKeyId(key), previous: readonly MasterKey[] = []) {
    if (!Buffer.isBuffer(key) || key.length !== KEY_BYTES) throw new SealingError('The master key must be 32 bytes');
    this.key = Buffer.from(key);
    this.kid = kid;
    for (const p of previous) {
      if (!Buffer.isBuffer(p.key) || p.key.length !== KEY_BYTES) throw new SealingError('A previous master key must be 32 bytes');
      this.ring.set(p.kid, Buffer.from(p.key));
    }
    this.ring.set(kid, this.key);
  }

  static fromMasterKey(master: MasterKey & { previous?: readonly MasterKey[] }): SecretSealer {
    return new SecretSealer(master.key, master.kid, master.previous ?? []);
  }

  /** The ids of every master key this sealer opens with (the current one first). */
  kids(): string[] {
    return [this.kid, ...[...this.ring.keys()].filter((k) => k !== this.kid)];
  }

  seal(plaintext: string): SealedSecret {
    const dataKey = randomBytes(KEY_BYTES);
    try {
      const data = encrypt(dataKey, Buffer.from(plaintext, 'utf8'), DATA_AAD);
      return { v: 1, ...this.wrap(dataKey), iv: data.iv.toString('base64'), tag: data.tag.toString('base64'), ciphertext: data.ciphertext.toString('base64') };
    } finally {
      dataKey.fill(0);
    }
  }

  private wrap(dataKey: Buffer): { kid: string; wrapped_key: string } {
    const wrap = encrypt(this.key, dataKey, wrapAad(this.kid));
    return { kid: this.kid, wrapped_key: Buffer.concat([wrap.iv, wrap.ciphertext, wrap.tag]).toString('base64') };
  }

  /** The data key of a sealed secret, unwrapped with the master key its kid names (a SealingError otherwise). */
  private dataKey(sealed: SealedSecret): Buffer {
    if (!sealed || typeof sealed !== 'object' || sealed.v !== 1) throw new SealingError('Not a sealed secret of version 1');
    const master = this.ring.get(sealed.kid);
    if (!master) {
      throw new SealingError(`This secret was sealed under master key ${String(sealed.kid)}, not under this service's master keys ${this.kids().join(', ')} (MASTER_KEY, MASTER_KEY_PREVIOUS or master.key changed?)`);
    }
    const fields = [sealed.wrapped_key, sealed.iv, sealed.tag, sealed.ciphertext];
    if (!fields.every((f) => typeof f === 'string')) throw new SealingError('Not a sealed secret of version 1');
    const wrapped = Buffer.from(sealed.wrapped_key, 'base64');
    const dataKey =
      wrapped.length === IV_BYTES + KEY_BYTES + TAG_BYTES
        ? decrypt(master, wrapped.subarray(0, IV_BYTES), wrapped.subarray(IV_BYTES, IV_BYTES + KEY_BYTES), wrapped.subarray(IV_BYTES + KEY_BYTES), wrapAad(sealed.kid))
        : null;
    if (!dataKey) throw new SealingError(`The data key of a sealed secret does not open with master key ${sealed.kid}: wrong master key, or the sealed secret was altered`);
    return dataKey;
  }

  /** The plaintext; a SealingError (naming no secret) for another master key, altered or malformed data. */
  open(sealed: SealedSecret): string {
    const dataKey = this.dataKey(sealed);
    try {
      const plaintext = decrypt(dataKey, Buffer.from(sealed.iv, 'base64'), Buffer.from(sealed.ciphertext, 'base64'), Buffer.from(sealed.tag, 'base64'), DATA_AAD);
      if (!plaintext) throw new SealingError('A sealed secret does not open: its ciphertext, IV or tag was altered');
      return plaintext.toString('utf8');
    } finally {
      dataKey.fill(0);
    }
  }

  /**
   * The same sealed secret with its data key wrapped under the current master key (the ciphertext,
   * IV and tag unchanged), or null when it already is. The data must open first: a re-wrap never
   * spreads an altered secret.
   */
  rewrap(sealed: SealedSecret): SealedSecret | null {
    if (sealed?.kid === this.kid) return null;
    this.open(sealed);
    const dataKey = this.dataKey(sealed);
    try {
      return { ...sealed, ...this.wrap(dataKey) };
    } finally {
      dataKey.fill(0);
    }
  }
}

/** Is this value a sealed secret (the stored shape)? */
export function isSealedSecret(value: unknown): value is SealedSecret {
  const v = value as SealedSecret | null;
  return !!v && typeof v === 'object' && v.v === 1 && typeof v.kid === 'string' && typeof v.wrapped_key === 'string' && typeof v.ciphertext === 'string';
}

const BASE64_32_BYTES = /^[A-Za-z0-9+/]{43}=$/;

/** The 32 bytes of a base64 master key, or null when it is not exactly that. */
function parseMasterKey(text: string): Buffer | null {
  const trimmed = text.trim();
  return BASE64_32_BYTES.test(trimmed) ? Buffer.from(trimmed, 'base64') : null;
}

/** Where the default master key file lives: KEYS_DIR, else the sibling `<DATA_DIR>.keys` (never inside the data directory, so a copy of the data alone opens nothing). */
export function defaultKeysDir(dataDir: string): string {
  const data = resolve(dataDir);
  return join(dirname(data), `${basename(data)}.keys`);
}

/** No master key was given and none may be made (the stores hold sealed secrets): the start stops. */
export class MissingMasterKeyError extends SealingError {}

export interface MasterKeySource extends MasterKey {
  /** True when this start made the key file. */
  created: boolean;
  /** The key file read (null: MASTER_KEY). */
  path: string | null;
  /** Keys that only open (MASTER_KEY_PREVIOUS, a re-wrap under way). */
  previous: MasterKey[];
  /** Where a key file was looked for (the message of a missing key names them). */
  lookedAt: string[];
}

/** MASTER_KEY_PREVIOUS: base64 keys separated by commas (or spaces). */
function parsePrevious(text: string | undefined): MasterKey[] {
  if (!text?.trim()) return [];
  return text
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((part) => {
      const key = parseMasterKey(part);
      if (!key) throw new SealingError('MASTER_KEY_PREVIOUS must be base64 keys of 32 bytes separated by commas');
      return { key, kid: masterKeyId(key) };
    });
}

/**
 * The master key: MASTER_KEY (base64 of 32 bytes) when set, else `<keysDir>/master.key` (the same
 * base64 text; keysDir is KEYS_DIR or `<dataDir>.keys`), made with mode 0600 on first use unless
 * `create` is false (then a MissingMasterKeyError says where it looked). A `<dataDir>/master.key`
 * left by an earlier version is still read (the start tells the operator to move it out). A
 * malformed key stops the start with an error that never shows the value. Two processes starting
 * together on empty data agree on one key: the file is written whole under a temporary name, then
 * linked into place only if no other is there yet. MASTER_KEY_PREVIOUS adds keys that only open.
 */
export function loadMasterKey(o: { env: string | undefined; previousEnv?: string | undefined; dataDir: string; keysDir?: string | null; create?: boolean }): MasterKeySource {
  const previous = parsePrevious(o.previousEnv);
  if (o.env !== undefined) {
    const key = parseMasterKey(o.env);
    if (!key) throw new SealingError('MASTER_KEY must be the base64 of 32 random bytes (44 characters, e.g. the output of `openssl rand -base64 32`)');
    return { key, kid: masterKeyId(key), created: false, path: null, previous, lookedAt: [] };
  }
  const keysDir = o.keysDir || defaultKeysDir(o.dataDir);
  const path = join(keysDir, 'master.key');
  const legacy = join(o.dataDir, 'master.key');
  const lookedAt = [path, legacy];
  let created = false;
  let chosen = path;
  if (!existsSync(path)) {
    if (existsSync(legacy)) chosen = legacy;
    else if (o.create === false) {
      throw new MissingMasterKeyError(`No master key: MASTER_KEY is not set and there is no key file at ${path} (KEYS_DIR) nor ${legacy}`);
    } else {
      mkdirSync(keysDir, { recursive: true, mode: 0o700 });
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
  }
  const key = parseMasterKey(readFileSync(chosen, 'utf8'));
  if (!key) throw new SealingError(`${chosen} must hold the base64 of 32 random bytes (44 characters)`);
  return { key, kid: masterKeyId(key), created, path: chosen, previous, lookedAt };
}
