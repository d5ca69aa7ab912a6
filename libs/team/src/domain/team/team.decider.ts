import type { Decider } from '#shared/decider.js';
import { DomainError, invalidParam, invalidState, notFound } from '#shared/errors.js';
import { isRole, mayAssign, type Role } from '../roles.js';
import type { TeamCommand } from './team.commands.js';
import type { TeamEvent } from './team.events.js';
import { evolveTeam } from './team.evolve.js';
import { activeOwners, initialTeamState, memberByEmail, memberByInvitation, memberByReset, type MemberState, type TeamState } from './team.state.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A member's e-mail as stored and compared: trimmed, lower case; refused when not an address. */
export function normaliseEmail(value: unknown, param = 'email'): string {
  const email = typeof value === 'string' ? value.trim().toLowerCase() : '';
  if (!EMAIL.test(email) || email.length > 254) throw invalidParam(param, 'email must be an e-mail address');
  return email;
}

const forbidden = (message: string) => new DomainError('permission_denied', message, null, 403);
/** One answer for every link that cannot be used (unknown, used, revoked, expired): nothing to learn from it. */
export const linkInvalid = () => new DomainError('link_invalid', 'This link is no longer valid. Ask for a new one.', null, 400);

function memberOf(state: TeamState, id: string): MemberState {
  const member = state.members[id];
  if (!member) throw notFound('member', id, 'member');
  return member;
}

/** The acting member, who must be active and allowed to manage the team; null (CLI, service) may do anything. */
function actorOf(state: TeamState, by: string | null): Role | null {
  if (by === null) return null;
  const actor = state.members[by];
  if (!actor || actor.status !== 'active') throw forbidden('Only an active member of the team may do this');
  return actor.role;
}

/** The actor may change `target` (currently of role `target.role`) into `role`: an owner is changed only by an owner. */
function checkMayChange(actor: Role | null, target: MemberState, role: Role = target.role) {
  if (actor === null) return;
  if (!mayAssign(actor, target.role) || !mayAssign(actor, role)) throw forbidden(`A member with the role ${actor} cannot change a member with the role ${target.role} into ${role}`);
}

/** Whether the account would still have an active owner once `member` is no longer one. */
function checkKeepsOwner(state: TeamState, member: MemberState) {
  if (member.role !== 'owner' || member.status !== 'active') return;
  if (activeOwners(state).length <= 1) throw new DomainError('last_owner', 'An account always keeps at least one active owner: transfer ownership or make another member owner first', 'member', 409);
}

const at = (d: Date) => d.toISOString();

/** The members of an account, their roles, invitations, credentials (by id) and two-factor requirement. */
export const teamDecider: Decider<TeamCommand, TeamState, TeamEvent> = {
  initialState: initialTeamState,
  evolve: evolveTeam,

  decide(command, state): TeamEvent[] {
    const account_id = command.accountId;
    switch (command.type) {
      case 'InviteMember': {
        const actor = actorOf(state, command.by);
        if (!isRole(command.role)) throw invalidParam('role', 'role must be one of owner, admin, developer, support, analyst, viewer');
        if (actor !== null && !mayAssign(actor, command.role)) throw forbidden(`A member with the role ${actor} cannot invite a member with the role ${command.role}`);
        // Only the CLI's and the first start's owner invitation may leave the e-mail to the invitee.
        const email = command.email === null && command.by === null ? null : normaliseEmail(command.email);
        if (email && memberByEmail(state, email)) throw new DomainError('resource_already_exists', `${email} is already a member of this account (or invited)`, 'email', 409);
        return [{ type: 'member.invited', data: { account_id, member: command.member, invitation: command.invitation, email, role: command.role, expires_at: at(command.expiresAt), invited_at: at(command.now), by: command.by } }];
      }
      case 'RevokeInvitation': {
        const actor = actorOf(state, command.by);
        const member = memberOf(state, command.member);
        checkMayChange(actor, member);
        if (member.status !== 'invited' || !member.invitation) throw invalidState('Only a pending invitation can be revoked', 'member');
        return [{ type: 'member.invitation_revoked', data: { account_id, member: member.id, email: member.email, invitation: member.invitation.id, revoked_at: at(command.now), by: command.by } }];
      }
      case 'AcceptInvitation': {
        const member = memberByInvitation(state, command.invitation);
        if (!member || member.status !== 'invited' || !member.invitation || new Date(member.invitation.expires_at) <= command.now) throw linkInvalid();
        const email = member.email ?? normaliseEmail(command.email);
        const holder = memberByEmail(state, email);
        if (holder && holder.id !== member.id) throw new DomainError('resource_already_exists', `${email} is already a member of this account`, 'email', 409);
        return [{ type: 'member.joined', data: { account_id, member: member.id, invitation: member.invitation.id, email, role: member.role, credential: command.credential, joined_at: at(command.now) } }];
      }
      case 'ChangeRole': {
        const actor = actorOf(state, command.by);
        if (!isRole(command.role)) throw invalidParam('role', 'role must be one of owner, admin, developer, support, analyst, viewer');
        const member = memberOf(state, command.member);
        checkMayChange(actor, member, command.role);
        if (member.role === command.role) return [];
        if (command.role !== 'owner') checkKeepsOwner(state, member);
        return [{ type: 'member.role_changed', data: { account_id, member: member.id, email: member.email, role: command.role, previous_role: member.role, changed_at: at(command.now), by: command.by } }];
      }
      case 'TransferOwnership': {
        const actor = actorOf(state, command.by);
        if (command.by === null || actor !== 'owner') throw forbidden('Only an owner can transfer ownership');
        const to = memberOf(state, command.to);
        if (to.status !== 'active') throw invalidState('Ownership goes to an active member', 'member');
        if (to.id === command.by) return [];
        const events: TeamEvent[] = [];
        if (to.role !== 'owner') events.push({ type: 'member.role_changed', data: { account_id, member: to.id, email: to.email, role: 'owner', previous_role: to.role, changed_at: at(command.now), by: command.by } });
        events.push({ type: 'member.role_changed', data: { account_id, member: command.by, email: state.members[command.by]?.email ?? null, role: 'admin', previous_role: 'owner', changed_at: at(command.now), by: command.by } });
        return events;
      }
      case 'DisableMember': {
        const actor = actorOf(state, command.by);
        const member = memberOf(state, command.member);
        checkMayChange(actor, member);
        if (member.status === 'disabled') return [];
        if (member.status !== 'active') throw invalidState('An invitation is revoked, not disabled', 'member');
        checkKeepsOwner(state, member);
        return [{ type: 'member.disabled', data: { account_id, member: member.id, email: member.email, disabled_at: at(command.now), by: command.by } }];
      }
      case 'EnableMember': {
        const actor = actorOf(state, command.by);
        const member = memberOf(state, command.member);
        checkMayChange(actor, member);
        if (member.status !== 'disabled') return [];
        return [{ type: 'member.enabled', data: { account_id, member: member.id, email: member.email, enabled_at: at(command.now), by: command.by } }];
      }
      case 'RemoveMember': {
        const actor = actorOf(state, command.by);
        const member = memberOf(state, command.member);
        checkMayChange(actor, member);
        checkKeepsOwner(state, member);
        return [{ type: 'member.removed', data: { account_id, member: member.id, email: member.email, role: member.role, removed_at: at(command.now), by: command.by } }];
      }
      case 'RequestPasswordReset': {
        const member = memberOf(state, command.member);
        if (member.status !== 'active') throw invalidState('Only an active member can reset a password', 'member');
        return [{ type: 'member.password_reset_requested', data: { account_id, member: member.id, email: member.email, reset: command.reset, expires_at: at(command.expiresAt), requested_at: at(command.now) } }];
      }
      case 'ResetPassword': {
        const member = memberByReset(state, command.reset);
        const reset = member?.resets[command.reset];
        if (!member || !reset || member.status !== 'active' || new Date(reset.expires_at) <= command.now) throw linkInvalid();
        return [{ type: 'member.password_reset', data: { account_id, member: member.id, email: member.email, reset: command.reset, credential: command.credential, reset_at: at(command.now) } }];
      }
      case 'ChangePassword': {
        const member = memberOf(state, command.member);
        if (member.status !== 'active') throw invalidState('Only an active member can change a password', 'member');
        return [{ type: 'member.password_changed', data: { account_id, member: member.id, email: member.email, credential: command.credential, changed_at: at(command.now) } }];
      }
      case 'EnableTwoFactor': {
        const member = memberOf(state, command.member);
        if (member.status !== 'active') throw invalidState('Only an active member can turn on two-factor sign-in', 'member');
        return [{ type: 'member.two_factor_enabled', data: { account_id, member: member.id, email: member.email, credential: command.credential, enabled_at: at(command.now) } }];
      }
      case 'DisableTwoFactor': {
        const actor = actorOf(state, command.by);
        const member = memberOf(state, command.member);
        if (!member.two_factor) return [];
        if (command.by !== member.id) checkMayChange(actor, member);
        else if (state.require_two_factor) throw invalidState('This account requires two-factor sign-in: it cannot be turned off', 'member');
        return [{ type: 'member.two_factor_disabled', data: { account_id, member: member.id, email: member.email, disabled_at: at(command.now), by: command.by } }];
      }
      case 'UseRecoveryCode': {
        const member = memberOf(state, command.member);
        if (!member.two_factor || member.two_factor.credential !== command.credential || member.two_factor.used.includes(command.index)) throw new DomainError('code_invalid', 'That code is not valid', 'code', 400);
        return [{ type: 'member.recovery_code_used', data: { account_id, member: member.id, email: member.email, credential: command.credential, index: command.index, used_at: at(command.now) } }];
      }
      case 'RequireTwoFactor': {
        const actor = actorOf(state, command.by);
        if (actor !== null && actor !== 'owner' && actor !== 'admin') throw forbidden('Only an owner or an admin can change this setting');
        if (state.require_two_factor === command.required) return [];
        return [{ type: 'team.two_factor_requirement_set', data: { account_id, required: command.required, set_at: at(command.now), by: command.by } }];
      }
    }
  },
};
