import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import { newId } from '#shared/ids.js';
import { linkInvalid } from '../domain/team/team.decider.js';
import { TeamStores } from '../infrastructure/team-stores.js';
import { executeTeam, staffContext } from './staff-context.js';
import { checkedPasswordCredential, validLinkToken } from './credentials.js';

export class AcceptInvitationCommand {
  constructor(
    readonly token: string,
    readonly email: string | null,
    readonly password: string,
    readonly address: string | null,
  ) {}
}

/** Accepts an invitation: the link's secret checked, the password checked and stored as an argon2id hash, the member active. */
@CommandHandler(AcceptInvitationCommand)
export class AcceptInvitationHandler implements ICommandHandler<AcceptInvitationCommand, { member: string; account_id: string; position: string | null }> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly stores: TeamStores,
  ) {}

  async execute({ token, email, password, address }: AcceptInvitationCommand) {
    const link = await validLinkToken(this.stores, token, 'invitation', this.executor.now());
    if (!link) throw linkInvalid();
    const credential = await checkedPasswordCredential(password, { accountId: link.account_id, member: link.member, email, now: this.executor.now(), id: newId('cred') });
    await this.stores.saveCredential(credential);
    const ctx = staffContext({ accountId: link.account_id, member: link.member, address });
    const result = await executeTeam(this.executor, ctx, { type: 'AcceptInvitation', invitation: link.id, email, credential: credential.id });
    await this.stores.deleteToken(link.id);
    return { member: link.member, account_id: link.account_id, position: result.position };
  }
}
