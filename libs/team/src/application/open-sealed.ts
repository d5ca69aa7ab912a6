import { Logger } from '@nestjs/common';
import { ApiError } from '#shared/errors.js';
import { type SealedSecret, SealingError, type SecretSealer } from '#shared/sealing.js';

const logger = new Logger('team');

/**
 * A sealed two-factor secret, opened. A secret the master key cannot open (MASTER_KEY changed, another
 * data directory's master.key) is the operator's problem, not the member's: it is logged with what to
 * check and answered 503 `secret_unavailable`, never with the secret or the key.
 */
export function openSealed(sealer: SecretSealer, sealed: SealedSecret, member: string): string {
  try {
    return sealer.open(sealed);
  } catch (error) {
    if (!(error instanceof SealingError)) throw error;
    logger.error({ msg: 'a two-factor secret cannot be opened with this master key: check MASTER_KEY (or KEYS_DIR/master.key; MASTER_KEY_PREVIOUS during a re-wrap) is the one it was sealed with', member, kid: sealed.kid });
    throw new ApiError(503, 'api_error', 'secret_unavailable', 'Two-factor sign-in is unavailable right now. The service\'s operator has been told.');
  }
}
