import { readFileSync } from 'node:fs';
import type { Config } from '#platform/config.js';
import { rewrapSealedSecrets, storedMasterKeyIds } from '#platform/sealing.module.js';
import { createReadStore } from '#platform/stores.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { loadMasterKey, masterKeyId, SealingError, SecretSealer } from '#shared/sealing.js';

const BASE64_32_BYTES = /^[A-Za-z0-9+/]{43}=$/;

/** The new master key: the file's text (or MASTER_KEY_NEW), base64 of 32 bytes; never echoed. */
export function readNewMasterKey(file: string | undefined, env: NodeJS.ProcessEnv): Buffer {
  const text = file ? readFileSync(file, 'utf8') : env.MASTER_KEY_NEW;
  if (text === undefined) throw new SealingError('secrets rewrap needs the new master key: --new-master-key-file PATH (or MASTER_KEY_NEW)');
  const trimmed = text.trim();
  if (!BASE64_32_BYTES.test(trimmed)) throw new SealingError(`The new master key${file ? ` in ${file}` : ' (MASTER_KEY_NEW)'} must be the base64 of 32 random bytes (openssl rand -base64 32)`);
  return Buffer.from(trimmed, 'base64');
}

/**
 * `secrets rewrap`: every stored sealed secret's data key wrapped again under the new master key,
 * opened with the keys this process is configured with (MASTER_KEY and MASTER_KEY_PREVIOUS, or the
 * key file). Safe while the service runs once every process accepts the new key (docs: the operator's
 * steps), and safe to run twice. Prints what it did and which keys the stores still use.
 */
export async function secretsRewrap(config: Config, newKey: Buffer, out: (line: string) => void, store?: ReadStore): Promise<number> {
  const current = loadMasterKey({ env: config.masterKey ?? undefined, previousEnv: config.masterKeyPrevious ?? undefined, dataDir: config.dataDir, keysDir: config.keysDir ?? null, create: false });
  const newKid = masterKeyId(newKey);
  const opens = [current, ...current.previous].filter((k) => k.kid !== newKid);
  const sealer = new SecretSealer(newKey, newKid, opens);
  const reads = store ?? createReadStore(config);
  try {
    const { rewrapped, already } = await rewrapSealedSecrets(reads, sealer);
    const left = await storedMasterKeyIds(reads);
    out(`re-wrapped ${rewrapped} sealed secrets under master key ${newKid} (${already} were already under it)`);
    const others = [...left.keys()].filter((k) => k !== newKid);
    if (others.length > 0) {
      out(`secrets still under ${others.join(', ')} (written while this ran?): run it again`);
      return 1;
    }
    out(`every sealed secret is under ${newKid}: give every process only the new key now (MASTER_KEY=<new>, no MASTER_KEY_PREVIOUS)`);
    return 0;
  } finally {
    if (!store) await reads.close();
  }
}
