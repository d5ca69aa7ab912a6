import { CommandBus } from '@nestjs/cqrs';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { AcceptInvitationCommand } from '#team/application/accept-invitation.js';
import { type Invitation, InviteMemberCommand } from '#team/application/invite-member.js';
import type { Role } from '#team/domain/roles.js';
import { pageVisitor } from './page-session.js';
import type { TestApp } from './test-app.js';

let made = 0;

/** A password the rules accept (four unrelated words), different for every member made. */
export const memberPassword = (n: number) => `orbit velvet canyon ${['pickle', 'lantern', 'harbor', 'meadow', 'copper', 'kettle'][n % 6]} ${n}`;

/**
 * A member of `accountId`'s team with `role`, invited and accepted through the team's commands (as the
 * CLI and the team page do), then signed in to the dashboard in a fresh browser-like visitor (in
 * `mode`, test by default). Returns the visitor with the member's id, e-mail and password.
 */
export async function signInMember(t: TestApp, accountId: string, role: Role = 'owner', options: { email?: string; mode?: 'test' | 'live' } = {}) {
  const { memberId, email, password } = await makeMember(t, accountId, role, options);
  const visitor = pageVisitor(t);
  await visitor.get('/dashboard');
  const res = await visitor.post('/dashboard/login', { email, password });
  if (res.status !== 303) throw new Error(`sign-in of ${email} answered ${res.status}`);
  if (options.mode === 'live') {
    const switched = await visitor.post('/dashboard/switch', {});
    if (switched.status !== 303) throw new Error(`the switch to live mode of ${email} answered ${switched.status}`);
  }
  await visitor.get('/dashboard/subscriptions');
  return { visitor, memberId, email, password };
}

/**
 * A member of `accountId`'s team with `role`, invited and accepted through the team's commands, not
 * signed in anywhere: for a browser that signs in through the form (test/e2e). Returns the member's
 * id, e-mail and password.
 */
export async function makeMember(t: Pick<TestApp, 'app'>, accountId: string, role: Role = 'owner', options: { email?: string } = {}) {
  const n = ++made;
  const email = options.email ?? `${role}-${n}-${accountId.slice(-6).toLowerCase()}@example.com`;
  const password = memberPassword(n);
  const commands = t.app.get(CommandBus);
  const engine = t.app.get(ProjectionEngine);
  const invitation = await commands.execute<InviteMemberCommand, Invitation>(new InviteMemberCommand({ accountId, member: null, address: null }, email, role));
  await engine.waitFor(invitation.position);
  const accepted = await commands.execute(new AcceptInvitationCommand(invitation.url.split('/').pop()!, null, password, null));
  await engine.waitFor(accepted.position);
  return { memberId: invitation.member, email, password };
}
