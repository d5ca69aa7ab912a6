import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import { newId } from '#shared/ids.js';
import { linkInvalid } from '../domain/team/team.decider.js';
import { TeamStores } from '../infrastructure/team-stores.js';
import { checkedPasswordCredential, validLinkToken } from './credentials.js';
import { executeTeam, staffContext } from './staff-context.js';

export class ResetPasswordCommand {
  constructor(
    readonly token: string,
    readonly password: string,
    readonly address: string | null,
  ) {}
}

/** Sets a new password through a reset link (once, within the hour); every session of the member ends. */
@CommandHandler(ResetPasswordCommand)
export class ResetPasswordHandler implements ICommandHandler<ResetPasswordCommand, { member: string; position: string | null }> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly stores: TeamStores,
  ) {}

  async execute({ token, password, address }: ResetPasswordCommand) {
    const link = await validLinkToken(this.stores, token, 'password_reset', this.executor.now());
    if (!link) throw linkInvalid();
    const credential = await checkedPasswordCredential(password, { accountId: link.account_id, member: link.member, email: null, now: this.executor.now(), id: newId('cred') });
    await this.stores.saveCredential(credential);
    const result = await executeTeam(this.executor, staffContext({ accountId: link.account_id, member: link.member, address }), { type: 'ResetPassword', reset: link.id, credential: credential.id });
    await this.stores.deleteToken(link.id);
    return { member: link.member, position: result.position };
  }
}
