import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { accountDecider, accountStream } from '../domain/account.decider.js';
import type { ApiKeyRolled } from '../domain/account-api-keys.js';
import { newKeyMaterial } from '../domain/api-key.js';
import { materialRecord, revealedKey, type RevealedApiKey } from './revealed-api-key.js';

/** Rolls key `keyId` of `ctx.accountId`: the old key keeps working `expiresInSeconds` (0 to 7 days). */
export class RollApiKeyCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly keyId: string,
    readonly expiresInSeconds: number,
  ) {}
}

/** The new key in clear exists only here (shown once), and the rolled key with when it stops working. */
export interface RolledApiKey extends RevealedApiKey {
  rolled: { id: string; expires_at: string };
}

@CommandHandler(RollApiKeyCommand)
export class RollApiKeyHandler implements ICommandHandler<RollApiKeyCommand, RolledApiKey> {
  constructor(private readonly executor: AggregateExecutor) {}

  async execute({ ctx, keyId, expiresInSeconds }: RollApiKeyCommand): Promise<RolledApiKey> {
    const material = newKeyMaterial();
    const { events, position } = await this.executor.execute(
      accountDecider,
      accountStream(ctx.accountId),
      (now) => ({
        type: 'RollApiKey' as const,
        accountId: ctx.accountId,
        keyId,
        expiresInSeconds,
        newKey: materialRecord(material),
        now,
      }),
      ctx,
    );
    const rolled = events[0].data as ApiKeyRolled['data'];
    return { ...revealedKey(rolled.new_key, material, position), rolled: { id: rolled.key_id, expires_at: rolled.expires_at } };
  }
}
