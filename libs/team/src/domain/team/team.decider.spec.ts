import { describe, expect, it } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { teamDecider } from './team.decider.js';
import type { TeamEvent } from './team.events.js';
import type { Role } from '../roles.js';

const now = new Date('2026-11-26T12:00:00.000Z');
const later = new Date('2026-12-10T12:00:00.000Z');
const A = 'acct_1';

const invited = (member: string, role: Role, email: string | null = `${member}@example.com`, expires = '2026-12-03T12:00:00.000Z'): TeamEvent => ({
  type: 'member.invited',
  data: { account_id: A, member, invitation: `invite_${member}`, email, role, expires_at: expires, invited_at: now.toISOString(), by: null },
});
const joined = (member: string, role: Role): TeamEvent => ({
  type: 'member.joined',
  data: { account_id: A, member, invitation: `invite_${member}`, email: `${member}@example.com`, role, credential: `cred_${member}`, joined_at: now.toISOString() },
});
const active = (member: string, role: Role) => [invited(member, role), joined(member, role)];
const team = [...active('owner1', 'owner'), ...active('admin1', 'admin'), ...active('support1', 'support')];

describe('team decider', () => {
  it('the CLI invites the first owner without an e-mail; the invitee gives it when accepting, once', () => {
    given(teamDecider).when({ type: 'InviteMember', accountId: A, now, by: null, member: 'm1', invitation: 'invite_1', email: null, role: 'owner', expiresAt: later }).then([
      { type: 'member.invited', data: { account_id: A, member: 'm1', invitation: 'invite_1', email: null, role: 'owner', expires_at: later.toISOString(), invited_at: now.toISOString(), by: null } },
    ]);
    const past = [invited('m1', 'owner', null)];
    given(teamDecider, past).when({ type: 'AcceptInvitation', accountId: A, now, invitation: 'invite_m1', email: ' Ana@Example.com ', credential: 'cred_x' }).then([
      { type: 'member.joined', data: { account_id: A, member: 'm1', invitation: 'invite_m1', email: 'ana@example.com', role: 'owner', credential: 'cred_x', joined_at: now.toISOString() } },
    ]);
    given(teamDecider, [...past, joined('m1', 'owner')]).when({ type: 'AcceptInvitation', accountId: A, now, invitation: 'invite_m1', email: 'x@example.com', credential: 'cred_y' }).thenRejects('link_invalid');
  });

  it('an invitation expires, and a revoked one cannot be accepted', () => {
    given(teamDecider, [invited('m1', 'support')]).when({ type: 'AcceptInvitation', accountId: A, now: later, invitation: 'invite_m1', email: null, credential: 'c' }).thenRejects('link_invalid');
    const revoked: TeamEvent = { type: 'member.invitation_revoked', data: { account_id: A, member: 'm1', email: null, invitation: 'invite_m1', revoked_at: now.toISOString(), by: null } };
    given(teamDecider, [invited('m1', 'support'), revoked]).when({ type: 'AcceptInvitation', accountId: A, now, invitation: 'invite_m1', email: null, credential: 'c' }).thenRejects('link_invalid');
  });

  it('a member invites by e-mail only, one e-mail once, and an admin cannot give the owner role', () => {
    given(teamDecider, team).when({ type: 'InviteMember', accountId: A, now, by: 'admin1', member: 'm2', invitation: 'i2', email: null, role: 'viewer', expiresAt: later }).thenRejects('parameter_invalid', 'email');
    given(teamDecider, team).when({ type: 'InviteMember', accountId: A, now, by: 'admin1', member: 'm2', invitation: 'i2', email: 'SUPPORT1@example.com', role: 'viewer', expiresAt: later }).thenRejects('resource_already_exists', 'email');
    given(teamDecider, team).when({ type: 'InviteMember', accountId: A, now, by: 'admin1', member: 'm2', invitation: 'i2', email: 'new@example.com', role: 'owner', expiresAt: later }).thenRejects('permission_denied');
    given(teamDecider, team).when({ type: 'InviteMember', accountId: A, now, by: 'support1', member: 'm2', invitation: 'i2', email: 'new@example.com', role: 'viewer', expiresAt: later }).thenRejects('permission_denied');
    const events = given(teamDecider, team).when({ type: 'InviteMember', accountId: A, now, by: 'owner1', member: 'm2', invitation: 'i2', email: 'new@example.com', role: 'owner', expiresAt: later }).events();
    expect(events[0].data).toMatchObject({ email: 'new@example.com', role: 'owner', by: 'owner1' });
  });

  it('the account keeps an active owner: the last one cannot be demoted, disabled or removed; ownership is transferred', () => {
    given(teamDecider, team).when({ type: 'ChangeRole', accountId: A, now, by: 'owner1', member: 'owner1', role: 'admin' }).thenRejects('last_owner');
    given(teamDecider, team).when({ type: 'DisableMember', accountId: A, now, by: null, member: 'owner1' }).thenRejects('last_owner');
    given(teamDecider, team).when({ type: 'RemoveMember', accountId: A, now, by: null, member: 'owner1' }).thenRejects('last_owner');
    given(teamDecider, team).when({ type: 'RemoveMember', accountId: A, now, by: 'admin1', member: 'owner1' }).thenRejects('permission_denied');
    given(teamDecider, team).when({ type: 'TransferOwnership', accountId: A, now, by: 'admin1', to: 'support1' }).thenRejects('permission_denied');
    const transfer = given(teamDecider, team).when({ type: 'TransferOwnership', accountId: A, now, by: 'owner1', to: 'support1' }).events();
    expect(transfer.map((e) => [(e.data as { member: string }).member, (e.data as { role: string }).role])).toEqual([['support1', 'owner'], ['owner1', 'admin']]);
    // After it, the former owner is an admin and can be removed by the new owner.
    const after = given(teamDecider, [...team, ...transfer]).when({ type: 'RemoveMember', accountId: A, now, by: 'support1', member: 'owner1' }).events();
    expect(after[0].type).toBe('member.removed');
  });

  it('role changes, disabling and password resets end sessions (the epoch moves on); recovery codes are single use', () => {
    const disabled: TeamEvent = { type: 'member.disabled', data: { account_id: A, member: 'support1', email: null, disabled_at: now.toISOString(), by: 'admin1' } };
    const state = [...team, disabled].reduce(teamDecider.evolve, teamDecider.initialState);
    expect(state.members.support1.session_epoch).toBe(1);
    expect(state.members.support1.status).toBe('disabled');
    const enabled: TeamEvent = { type: 'member.two_factor_enabled', data: { account_id: A, member: 'support1', email: null, credential: 'cred_t', enabled_at: now.toISOString() } };
    const used: TeamEvent = { type: 'member.recovery_code_used', data: { account_id: A, member: 'support1', email: null, credential: 'cred_t', index: 3, used_at: now.toISOString() } };
    given(teamDecider, [...team, enabled, used]).when({ type: 'UseRecoveryCode', accountId: A, now, member: 'support1', credential: 'cred_t', index: 3 }).thenRejects('code_invalid');
    given(teamDecider, [...team, enabled, used]).when({ type: 'UseRecoveryCode', accountId: A, now, member: 'support1', credential: 'cred_t', index: 4 }).then((events) => expect(events).toHaveLength(1));
  });

  it('a password reset link works once and for an hour', () => {
    const requested: TeamEvent = { type: 'member.password_reset_requested', data: { account_id: A, member: 'support1', email: null, reset: 'rst_1', expires_at: '2026-11-26T13:00:00.000Z', requested_at: now.toISOString() } };
    const reset = given(teamDecider, [...team, requested]).when({ type: 'ResetPassword', accountId: A, now, reset: 'rst_1', credential: 'cred_new' }).events();
    expect(reset[0]).toMatchObject({ type: 'member.password_reset', data: { member: 'support1', email: 'support1@example.com', credential: 'cred_new' } });
    given(teamDecider, [...team, requested, ...reset]).when({ type: 'ResetPassword', accountId: A, now, reset: 'rst_1', credential: 'cred_again' }).thenRejects('link_invalid');
    given(teamDecider, [...team, requested]).when({ type: 'ResetPassword', accountId: A, now: new Date('2026-11-26T13:00:00.000Z'), reset: 'rst_1', credential: 'c' }).thenRejects('link_invalid');
  });

  it('a member cannot turn two-factor off while the account requires it', () => {
    const enabled: TeamEvent = { type: 'member.two_factor_enabled', data: { account_id: A, member: 'support1', email: null, credential: 'cred_t', enabled_at: now.toISOString() } };
    const required: TeamEvent = { type: 'team.two_factor_requirement_set', data: { account_id: A, required: true, set_at: now.toISOString(), by: 'owner1' } };
    given(teamDecider, [...team, enabled, required]).when({ type: 'DisableTwoFactor', accountId: A, now, by: 'support1', member: 'support1' }).thenRejects('invalid_state');
    given(teamDecider, [...team, enabled]).when({ type: 'DisableTwoFactor', accountId: A, now, by: 'support1', member: 'support1' }).then((events) => expect(events[0].type).toBe('member.two_factor_disabled'));
    given(teamDecider, team).when({ type: 'RequireTwoFactor', accountId: A, now, by: 'support1', required: true }).thenRejects('permission_denied');
  });
});
