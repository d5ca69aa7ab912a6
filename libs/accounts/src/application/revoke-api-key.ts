import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { accountDecider, accountStream } from '../domain/account.decider.js';
import type { ApiKeyRevoked } from '../domain/account-api-keys.js';

/** Revokes key `keyId` of `ctx.accountId` at once: its next request answers 401. */
export class RevokeApiKeyCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly keyId: string,
  ) {}
}

export interface RevokedApiKey {
  id: string;
  revoked_at: string;
  position: string | null;
}

@CommandHandler(RevokeApiKeyCommand)
export class RevokeApiKeyHandler implements ICommandHandler<RevokeApiKeyCommand, RevokedApiKey> {
  constructor(private readonly executor: AggregateExecutor) {}

  async execute({ ctx, keyId }: RevokeApiKeyCommand): Promise<RevokedApiKey> {
    const { events, position } = await this.executor.execute(
      accountDecider,
      accountStream(ctx.accountId),
      (now) => ({ type: 'RevokeApiKey' as const, accountId: ctx.accountId, keyId, now }),
      ctx,
    );
    const revoked = events[0].data as ApiKeyRevoked['data'];
    return { id: revoked.key_id, revoked_at: revoked.revoked_at, position };
  }
}
