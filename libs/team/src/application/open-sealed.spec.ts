import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { ApiError } from '#shared/errors.js';
import { masterKeyId, SecretSealer } from '#shared/sealing.js';
import { captureLogs } from '#test/support/test-logs.js';
import { openSealed } from './open-sealed.js';

const logs = captureLogs();

const sealerOf = (key: Buffer) => SecretSealer.fromMasterKey({ key, kid: masterKeyId(key) });

describe('openSealed', () => {
  it('opens what the master key sealed', () => {
    const sealer = sealerOf(randomBytes(32));
    expect(openSealed(sealer, sealer.seal('JBSWY3DPEHPK3PXP'), 'mem_1')).toBe('JBSWY3DPEHPK3PXP');
  });

  it('under another master key: a 503 secret_unavailable that shows neither the secret nor the key, and the operator is told what to check', async () => {
    const key = randomBytes(32);
    const sealed = sealerOf(key).seal('JBSWY3DPEHPK3PXP');
    let error: unknown;
    try {
      openSealed(sealerOf(randomBytes(32)), sealed, 'mem_1');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(503);
    expect((error as ApiError).code).toBe('secret_unavailable');
    const body = JSON.stringify((error as ApiError).toBody());
    expect(body).not.toContain('JBSWY3DPEHPK3PXP');
    expect(body).not.toContain(key.toString('base64'));
    await logs.expectError(/check MASTER_KEY/);
  });
});
