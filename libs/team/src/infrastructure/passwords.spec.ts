import argon2 from 'argon2';
import { ARGON2_PARAMETERS, checkPassword, DECOY_HASH, hashPassword, PASSWORD_RULES, verifyNothing, verifyPassword } from './passwords.js';

describe('checkPassword', () => {
  test('refuses fewer than 12 and more than 128 characters (code points, not UTF-16 units)', async () => {
    expect(PASSWORD_RULES).toEqual({ minLength: 12, maxLength: 128 });
    expect(await checkPassword('orbit velve', {})).toBe('too_short');
    expect(await checkPassword('🦜🦜🦜🦜🦜🦜', {})).toBe('too_short'); // 12 UTF-16 units, 6 characters
    expect(await checkPassword('x'.repeat(129), {})).toBe('too_long');
  });

  test('refuses common and guessable passwords, accepts a passphrase of four unrelated words', async () => {
    expect(await checkPassword('Password1234', {})).toBe('too_common');
    expect(await checkPassword('qwertyuiop12', {})).toBe('too_common');
    expect(await checkPassword('passwordpassword', {})).toBe('too_common');
    expect(await checkPassword('orbit velvet canyon pickle', {})).toBeNull();
    expect(await checkPassword('lámpara río verde nube', {})).toBeNull();
  });

  test("a password made of the member's e-mail or the account's name is too common", async () => {
    expect(await checkPassword('mariagomez123', { email: 'maria.gomez@acme.co' })).toBe('too_common');
    expect(await checkPassword('acmecoffee2024!', { email: 'x@y.co', accountName: 'Acme Coffee' })).toBe('too_common');
    // The same passwords pass without that context: the user inputs are what refuses them.
    expect(await checkPassword('acmecoffee2024!', { email: null, accountName: null })).toBeNull();
  });
});

describe('hashPassword / verifyPassword', () => {
  test('argon2id with the chosen parameters; the hash verifies its password and no other', async () => {
    const hash = await hashPassword('orbit velvet canyon pickle');
    expect(hash.startsWith('$argon2id$v=19$m=65536,t=3,p=1$')).toBe(true);
    expect(hash).not.toContain('orbit');
    expect(await verifyPassword(hash, 'orbit velvet canyon pickle')).toBe(true);
    expect(await verifyPassword(hash, 'orbit velvet canyon pickles')).toBe(false);
    expect(await hashPassword('orbit velvet canyon pickle')).not.toBe(hash); // a fresh salt each time
  });

  test('the composed and decomposed forms of an accented password are the same password', async () => {
    const composed = 'lámpara río verde nube'.normalize('NFC');
    const decomposed = composed.normalize('NFD');
    expect(decomposed).not.toBe(composed);
    expect(await verifyPassword(await hashPassword(composed), decomposed)).toBe(true);
  });

  test('a malformed, truncated or empty hash is false, never an exception', async () => {
    const hash = await hashPassword('orbit velvet canyon pickle');
    for (const bad of ['', 'not a hash', '$argon2id$', hash.slice(0, -10), '$2b$10$abcdefghijklmnopqrstuu', '$argon2id$v=19$m=1,t=1,p=1$YQ$YQ']) {
      await expect(verifyPassword(bad, 'orbit velvet canyon pickle')).resolves.toBe(false);
    }
    await expect(verifyPassword(null as unknown as string, 'x')).resolves.toBe(false);
  });
});

describe('verifyNothing', () => {
  test('the decoy hash has the current parameters (so it costs what a real verify costs)', () => {
    expect(argon2.needsRehash(DECOY_HASH, ARGON2_PARAMETERS)).toBe(false);
  });

  test('is false and takes about as long as verifying a real hash', async () => {
    const hash = await hashPassword('orbit velvet canyon pickle');
    // Interleaved rounds, each side's fastest: a parallel suite's load slows single runs, not the fastest.
    const took = async (f: () => Promise<unknown>) => {
      const start = performance.now();
      await f();
      return performance.now() - start;
    };
    let real = Infinity;
    let decoy = Infinity;
    for (let round = 0; round < 5; round++) {
      real = Math.min(real, await took(() => verifyPassword(hash, 'wrong password here')));
      decoy = Math.min(decoy, await took(() => verifyNothing()));
    }
    await expect(verifyNothing()).resolves.toBe(false);
    expect(decoy).toBeGreaterThan(real * 0.5);
    expect(decoy).toBeLessThan(real * 2);
  });
});
