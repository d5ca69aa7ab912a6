import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { accountDecider, accountStream } from '../domain/account.decider.js';
import type { ApiKeyCreated } from '../domain/account-api-keys.js';
import { type ApiKeyKind, type Mode, newKeyMaterial } from '../domain/api-key.js';
import { materialRecord, revealedKey, type RevealedApiKey } from './revealed-api-key.js';

export interface CreateApiKeyInput {
  kind: ApiKeyKind;
  mode: Mode;
  name?: string | null;
  /** Restricted keys: resource → none | read | write. */
  permissions?: Record<string, string> | null;
}

/**
 * Creates a key on `ctx.accountId` (the dashboard: `ctx.actor` = the member, `ctx.address`; the CLI:
 * `{type: 'cli'}`). The key's own mode is `input.mode`, whatever the context's mode.
 */
export class CreateApiKeyCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly input: CreateApiKeyInput,
  ) {}
}

/** The key in clear exists only here: shown once, never stored (only the SHA-256 of its secret is). */
export type CreatedApiKey = RevealedApiKey;

@CommandHandler(CreateApiKeyCommand)
export class CreateApiKeyHandler implements ICommandHandler<CreateApiKeyCommand, CreatedApiKey> {
  constructor(private readonly executor: AggregateExecutor) {}

  async execute({ ctx, input }: CreateApiKeyCommand): Promise<CreatedApiKey> {
    const material = newKeyMaterial();
    const { events, position } = await this.executor.execute(
      accountDecider,
      accountStream(ctx.accountId),
      (now) => ({
        type: 'CreateApiKey' as const,
        accountId: ctx.accountId,
        kind: input.kind,
        mode: input.mode,
        name: input.name ?? null,
        permissions: input.permissions ?? null,
        key: materialRecord(material),
        now,
      }),
      ctx,
    );
    return revealedKey(events[0].data as unknown as ApiKeyCreated['data'], material, position);
  }
}
