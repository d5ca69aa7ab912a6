import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadMasterKey, masterKeyId, MissingMasterKeyError, type SealedSecret, SealingError, SecretSealer } from './sealing.js';

const PLAINTEXT = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

describe('SecretSealer', () => {
  const master = randomBytes(32);
  const sealer = new SecretSealer(master);

  test('seals and opens; the sealed bytes do not contain the plaintext', () => {
    const sealed = sealer.seal(PLAINTEXT);
    expect(sealed.v).toBe(1);
    expect(sealed.kid).toBe(masterKeyId(master));
    expect(Buffer.from(sealed.iv, 'base64')).toHaveLength(12);
    expect(Buffer.from(sealed.tag, 'base64')).toHaveLength(16);
    expect(Buffer.from(sealed.wrapped_key, 'base64')).toHaveLength(12 + 32 + 16);
    const everything = JSON.stringify(sealed);
    expect(everything).not.toContain(PLAINTEXT);
    const bytes = Buffer.concat([sealed.wrapped_key, sealed.iv, sealed.tag, sealed.ciphertext].map((f) => Buffer.from(f, 'base64')));
    expect(bytes.includes(Buffer.from(PLAINTEXT))).toBe(false);
    expect(bytes.includes(master)).toBe(false);
    expect(sealer.open(sealed)).toBe(PLAINTEXT);
    expect(sealer.open(JSON.parse(everything) as SealedSecret)).toBe(PLAINTEXT); // survives a store's JSON
  });

  test('a fresh data key and IV per secret: the same plaintext seals differently each time', () => {
    const a = sealer.seal(PLAINTEXT);
    const b = sealer.seal(PLAINTEXT);
    expect(a.wrapped_key).not.toBe(b.wrapped_key);
    expect(a.iv).not.toBe(b.iv);
    expect(a.ciphertext).not.toBe(b.ciphertext);
    expect(sealer.seal('ñandú ✓').ciphertext).toBeDefined();
    expect(sealer.open(sealer.seal('ñandú ✓'))).toBe('ñandú ✓');
    expect(sealer.open(sealer.seal(''))).toBe('');
  });

  test('opening with another master key throws a clear error', () => {
    const sealed = sealer.seal(PLAINTEXT);
    const other = new SecretSealer(randomBytes(32));
    expect(() => other.open(sealed)).toThrow(SealingError);
    expect(() => other.open(sealed)).toThrow(/master key/);
    // Even when the kid is forged to match, the wrap does not open.
    expect(() => other.open({ ...sealed, kid: other.kid })).toThrow(/wrong master key/);
  });

  test('altered bytes anywhere are refused, never opened to something else', () => {
    const sealed = sealer.seal(PLAINTEXT);
    const flip = (b64: string, at = 0) => {
      const bytes = Buffer.from(b64, 'base64');
      bytes[at] ^= 1;
      return bytes.toString('base64');
    };
    for (const altered of [
      { ...sealed, ciphertext: flip(sealed.ciphertext) },
      { ...sealed, iv: flip(sealed.iv) },
      { ...sealed, tag: flip(sealed.tag) },
      { ...sealed, wrapped_key: flip(sealed.wrapped_key, 20) },
      { ...sealed, wrapped_key: flip(sealed.wrapped_key, 0) },
      { ...sealed, wrapped_key: sealed.wrapped_key.slice(0, 20) },
      { ...sealed, ciphertext: sealer.seal('another secret').ciphertext },
    ]) {
      expect(() => sealer.open(altered)).toThrow(SealingError);
    }
    expect(() => sealer.open({ ...sealed, v: 2 } as unknown as SealedSecret)).toThrow(/version 1/);
    expect(() => sealer.open(null as unknown as SealedSecret)).toThrow(SealingError);
  });

  test('errors never show the plaintext nor the key', () => {
    const sealed = sealer.seal(PLAINTEXT);
    const other = new SecretSealer(randomBytes(32));
    const messages: string[] = [];
    for (const attempt of [() => other.open({ ...sealed, kid: other.kid }), () => other.open(sealed), () => sealer.open({ ...sealed, tag: other.seal('x').tag })]) {
      try {
        attempt();
      } catch (error) {
        messages.push(String((error as Error).message));
      }
    }
    expect(messages).toHaveLength(3);
    for (const message of messages) {
      expect(message).not.toContain(PLAINTEXT);
      expect(message).not.toContain(master.toString('base64'));
    }
  });

  test('a master key must be 32 bytes', () => {
    expect(() => new SecretSealer(randomBytes(16))).toThrow(SealingError);
  });
});

describe('loadMasterKey', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sealing-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('MASTER_KEY (base64 of 32 bytes) is the key; no file is written', () => {
    const key = randomBytes(32);
    const loaded = loadMasterKey({ env: key.toString('base64'), dataDir: dir });
    expect(loaded.key.equals(key)).toBe(true);
    expect(loaded.kid).toMatch(/^[0-9a-f]{16}$/);
    expect(loaded.kid).toBe(masterKeyId(key));
    expect(loaded).toMatchObject({ created: false, path: null });
    expect(() => statSync(join(dir, 'master.key'))).toThrow();
  });

  test('a MASTER_KEY that is not base64 of 32 bytes is a clear error that does not echo it', () => {
    for (const bad of ['', 'secret', randomBytes(16).toString('base64'), randomBytes(33).toString('base64'), randomBytes(32).toString('hex'), randomBytes(32).toString('base64url').slice(0, 43)]) {
      expect(() => loadMasterKey({ env: bad, dataDir: dir })).toThrow(/MASTER_KEY must be the base64 of 32/);
    }
    let message = '';
    try {
      loadMasterKey({ env: 'my-secret-value', dataDir: dir });
    } catch (error) {
      message = String((error as Error).message);
    }
    expect(message).toMatch(/MASTER_KEY/);
    expect(message).not.toContain('my-secret-value');
  });

  test('without MASTER_KEY: <dataDir>.keys/master.key (outside the data directory) is made once (mode 0600), then read back', () => {
    const dataDir = join(dir, 'nested', 'data');
    const first = loadMasterKey({ env: undefined, dataDir });
    expect(first.created).toBe(true);
    expect(first.path).toBe(join(dir, 'nested', 'data.keys', 'master.key'));
    expect(existsSync(join(dataDir, 'master.key'))).toBe(false);
    expect(first.key).toHaveLength(32);
    expect(statSync(first.path!).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(first.path!, 'utf8').trim(), 'base64').equals(first.key)).toBe(true);
    const second = loadMasterKey({ env: undefined, dataDir });
    expect(second.created).toBe(false);
    expect(second.key.equals(first.key)).toBe(true);
    expect(second.kid).toBe(first.kid);
    // A secret sealed before a restart opens after it.
    const sealed = SecretSealer.fromMasterKey(first).seal(PLAINTEXT);
    expect(SecretSealer.fromMasterKey(second).open(sealed)).toBe(PLAINTEXT);
  });

  test('a damaged master.key stops the start with an error naming the file', () => {
    writeFileSync(join(dir, 'master.key'), 'not a key\n', { mode: 0o600 });
    expect(() => loadMasterKey({ env: undefined, dataDir: dir })).toThrow(/master\.key must hold the base64 of 32/);
  });

  test('KEYS_DIR names where the key file lives; a <dataDir>/master.key of an earlier version is still read', () => {
    const keysDir = join(dir, 'keys');
    const made = loadMasterKey({ env: undefined, dataDir: join(dir, 'data'), keysDir });
    expect(made.path).toBe(join(keysDir, 'master.key'));
    const legacyData = join(dir, 'old');
    mkdirSync(legacyData);
    const key = randomBytes(32);
    writeFileSync(join(legacyData, 'master.key'), `${key.toString('base64')}\n`, { mode: 0o600 });
    const legacy = loadMasterKey({ env: undefined, dataDir: legacyData });
    expect(legacy.path).toBe(join(legacyData, 'master.key'));
    expect(legacy.key.equals(key)).toBe(true);
    expect(legacy.created).toBe(false);
  });

  test('create: false and no key anywhere: a MissingMasterKeyError naming where it looked, and no file made', () => {
    const dataDir = join(dir, 'data');
    expect(() => loadMasterKey({ env: undefined, dataDir, create: false })).toThrow(MissingMasterKeyError);
    expect(() => loadMasterKey({ env: undefined, dataDir, create: false })).toThrow(new RegExp(`MASTER_KEY is not set and there is no key file at ${join(dir, 'data.keys', 'master.key')}`));
    expect(existsSync(join(dir, 'data.keys'))).toBe(false);
  });

  test('MASTER_KEY_PREVIOUS: keys that open what they sealed; a malformed one is a clear error', () => {
    const old = randomBytes(32);
    const current = randomBytes(32);
    const loaded = loadMasterKey({ env: current.toString('base64'), previousEnv: old.toString('base64'), dataDir: dir });
    expect(loaded.previous.map((p) => p.kid)).toEqual([masterKeyId(old)]);
    const sealedOld = new SecretSealer(old).seal(PLAINTEXT);
    expect(SecretSealer.fromMasterKey(loaded).open(sealedOld)).toBe(PLAINTEXT);
    expect(() => loadMasterKey({ env: current.toString('base64'), previousEnv: 'nope', dataDir: dir })).toThrow(/MASTER_KEY_PREVIOUS must be/);
  });
});

describe('re-wrap', () => {
  test('re-wraps the data key under the current master key, the ciphertext unchanged; the old key alone no longer opens it', () => {
    const old = randomBytes(32);
    const next = randomBytes(32);
    const sealed = new SecretSealer(old).seal(PLAINTEXT);
    const ring = new SecretSealer(next, masterKeyId(next), [{ key: old, kid: masterKeyId(old) }]);
    expect(ring.kids()).toEqual([masterKeyId(next), masterKeyId(old)]);
    const rewrapped = ring.rewrap(sealed)!;
    expect(rewrapped.kid).toBe(masterKeyId(next));
    expect(rewrapped.ciphertext).toBe(sealed.ciphertext);
    expect(rewrapped.wrapped_key).not.toBe(sealed.wrapped_key);
    expect(new SecretSealer(next).open(rewrapped)).toBe(PLAINTEXT);
    expect(() => new SecretSealer(old).open(rewrapped)).toThrow(SealingError);
    expect(ring.rewrap(rewrapped)).toBeNull();
  });

  test('an altered secret is not re-wrapped', () => {
    const old = randomBytes(32);
    const next = randomBytes(32);
    const sealed = new SecretSealer(old).seal(PLAINTEXT);
    const ring = new SecretSealer(next, masterKeyId(next), [{ key: old, kid: masterKeyId(old) }]);
    const altered = { ...sealed, ciphertext: Buffer.from('x'.repeat(32)).toString('base64') };
    expect(() => ring.rewrap(altered)).toThrow(SealingError);
  });
});
