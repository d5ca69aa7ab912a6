import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import { newId } from '#shared/ids.js';
import { accountDecider, accountStream } from '../domain/account.decider.js';
import { issueApiKey } from '../domain/api-key.js';

export class CreateAccountCommand {
  constructor(readonly name: string) {}
}

export interface CreatedAccount {
  id: string;
  name: string;
  test_key: string;
  live_key: string;
  /** Global position of the creation, for read-your-writes. */
  position: string | null;
}

/** Creates a merchant account with a fresh test and live key; the keys exist in clear only in this result. */
@CommandHandler(CreateAccountCommand)
export class CreateAccountHandler implements ICommandHandler<CreateAccountCommand, CreatedAccount> {
  constructor(private readonly executor: AggregateExecutor) {}

  async execute({ name }: CreateAccountCommand): Promise<CreatedAccount> {
    const id = newId('acct');
    const test = issueApiKey('test');
    const live = issueApiKey('live');
    const result = await this.executor.execute(
      accountDecider,
      accountStream(id),
      (now) => ({
        type: 'CreateAccount' as const,
        accountId: id,
        name,
        now,
        apiKeys: [test, live].map((k) => ({ key_id: k.keyId, mode: k.mode, secret_hash: k.secretHash, last4: k.last4, created_at: now.toISOString() })),
      }),
      null,
    );
    return { id, name, test_key: test.key, live_key: live.key, position: result.position };
  }
}
