import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { type EventStore, WrongExpectedRevisionError } from '#event-store/event-store.port.js';
import { type Clock, CLOCK } from '#shared/clock.js';
import { newEventUuid } from '#shared/ids.js';
import { EVENT_STORE } from '#platform/tokens.js';
import { CreateAccountCommand, type CreatedAccount } from './create-account.js';

/** The first account's name when the merchant did not give one (ACCOUNT_NAME); `accounts rename` changes it. */
export const UNNAMED_ACCOUNT = 'Default account';

/**
 * On the first start with an empty event store, creates the default account (named `name`, or
 * UNNAMED_ACCOUNT). The claim stream makes this happen once even when several processes start together.
 */
@Injectable()
export class EnsureDefaultAccount {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly commands: CommandBus,
  ) {}

  async run(name: string | null = null): Promise<CreatedAccount | null> {
    if ((await this.events.headPosition()) !== null) return null;
    try {
      await this.events.append(
        'bootstrap-default_account',
        [{ id: newEventUuid(), type: 'platform.default_account_claimed', data: {}, metadata: { occurred_at: this.clock.now().toISOString() } }],
        'no_stream',
      );
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) return null;
      throw error;
    }
    return this.commands.execute(new CreateAccountCommand(name ?? UNNAMED_ACCOUNT));
  }
}
