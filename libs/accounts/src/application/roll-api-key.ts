import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { accountDecider, accountStream } from '../domain/account.decider.js';
import type { ApiKeyRolled } from '../domain/account-api-keys.js';
import { type ApiKeyKind, formatApiKey, maskKey, type Mode, newKeyMaterial } from '../domain/api-key.js';

/** Rolls key `keyId` of `ctx.accountId`: the old key keeps working `expiresInSeconds` (0 to 7 days). */
export class RollApiKeyCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly keyId: string,
    readonly expiresInSeconds: number,
  ) {}
}

/** The new key in clear exists only here (shown once). */
export interface RolledApiKey {
  /** The new key's id. */
  id: string;
  key: string;
  masked: string;
  kind: ApiKeyKind;
  mode: Mode;
  name: string;
  /** The rolled key and when it stops working. */
  rolled: { id: string; expires_at: string };
  position: string | null;
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
        newKey: { key_id: material.keyId, secret_hash: material.secretHash, last4: material.last4 },
        now,
      }),
      ctx,
    );
    const rolled = events[0].data as ApiKeyRolled['data'];
    const next = rolled.new_key;
    return {
      id: next.key_id,
      key: formatApiKey(next.kind, next.mode, material),
      masked: maskKey(next.kind, next.mode, next.last4),
      kind: next.kind,
      mode: next.mode,
      name: next.name,
      rolled: { id: rolled.key_id, expires_at: rolled.expires_at },
      position,
    };
  }
}
