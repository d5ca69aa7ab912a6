import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { Inject } from '@nestjs/common';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import { READ_STORE } from '#platform/tokens.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { DomainError } from '#shared/errors.js';
import { newId } from '#shared/ids.js';
import { verifyPassword } from '../infrastructure/passwords.js';
import { type PasswordCredential, TeamStores } from '../infrastructure/team-stores.js';
import type { MemberDoc } from '../read-models/member.read-model.js';
import { checkedPasswordCredential } from './credentials.js';
import { executeTeam, type Staff, staffContext } from './staff-context.js';

export class ChangePasswordCommand {
  constructor(
    readonly staff: Staff & { member: string },
    readonly current: string,
    readonly password: string,
  ) {}
}

/** A member changes their own password (the current one first); their other sessions end. */
@CommandHandler(ChangePasswordCommand)
export class ChangePasswordHandler implements ICommandHandler<ChangePasswordCommand, { position: string | null }> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly stores: TeamStores,
    @Inject(READ_STORE) private readonly store: ReadStore,
  ) {}

  async execute({ staff, current, password }: ChangePasswordCommand) {
    const member = await this.store.get<MemberDoc>('members', staff.member);
    const credential = await this.stores.credential<PasswordCredential>(member?.password_credential);
    if (!member || !credential || !(await verifyPassword(credential.hash, String(current ?? '')))) throw new DomainError('password_incorrect', 'The current password is not right', 'current_password', 400);
    const next = await checkedPasswordCredential(password, { accountId: member.account_id, member: member.id, email: member.email, now: this.executor.now(), id: newId('cred') });
    await this.stores.saveCredential(next);
    const result = await executeTeam(this.executor, staffContext(staff), { type: 'ChangePassword', member: member.id, credential: next.id });
    return { position: result.position };
  }
}
