import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { type Invitation, InviteMemberCommand } from './invite-member.js';

/**
 * The first owner of a new account: an invitation made by the service (no member acts), printed with
 * the keys by the first start and by `accounts create`. With no e-mail given, the invitee gives theirs
 * when accepting.
 */
@Injectable()
export class InviteFirstOwner {
  constructor(
    private readonly commands: CommandBus,
  ) {}

  async run(accountId: string, email: string | null): Promise<Invitation> {
    // The caller waits for the read models (`invitation.position`) before it prints the link.
    return this.commands.execute<InviteMemberCommand, Invitation>(new InviteMemberCommand({ accountId, member: null, address: null }, email, 'owner'));
  }
}
