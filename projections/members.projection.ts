import type { RecordedEvent } from '#event-store/event-store.port.js';
import type { Projection } from '#projection-runtime/projection.js';
import { ENDS_SESSIONS, TEAM_EVENT_TYPES, type TeamEvent } from '#team/domain/team/team.events.js';
import type { MemberDoc, TeamDoc } from '#team/read-models/member.read-model.js';

const MEMBER_EVENTS = new Set<string>(TEAM_EVENT_TYPES.filter((t) => t.startsWith('member.')));

function projectMember(doc: MemberDoc | null, e: TeamEvent): MemberDoc | null {
  if (e.type === 'member.invited') {
    const d = e.data;
    return { id: d.member, account_id: d.account_id, email: d.email, role: d.role, status: 'invited', invited_at: d.invited_at, invited_by: d.by, invitation: d.invitation, invitation_expires_at: d.expires_at, joined_at: null, password_credential: null, totp_credential: null, recovery_codes_used: [], session_epoch: 0 };
  }
  if (!doc) return doc;
  const next = ((): MemberDoc | null => {
    switch (e.type) {
      case 'member.invitation_revoked':
      case 'member.removed':
        return null;
      case 'member.joined':
        return { ...doc, email: e.data.email, status: 'active', invitation: null, invitation_expires_at: null, joined_at: e.data.joined_at, password_credential: e.data.credential };
      case 'member.role_changed':
        return { ...doc, role: e.data.role };
      case 'member.disabled':
        return { ...doc, status: 'disabled' };
      case 'member.enabled':
        return { ...doc, status: 'active' };
      case 'member.password_reset':
      case 'member.password_changed':
        return { ...doc, password_credential: e.data.credential };
      case 'member.two_factor_enabled':
        return { ...doc, totp_credential: e.data.credential, recovery_codes_used: [] };
      case 'member.two_factor_disabled':
        return { ...doc, totp_credential: null, recovery_codes_used: [] };
      case 'member.recovery_code_used':
        return { ...doc, recovery_codes_used: [...doc.recovery_codes_used, e.data.index] };
      default:
        return doc;
    }
  })();
  return next && ENDS_SESSIONS.has(e.type) ? { ...next, session_epoch: next.session_epoch + 1 } : next;
}

/** The members of every account's team: what sign-in, sessions and the team page read. */
export const membersProjection: Projection<MemberDoc> = {
  name: 'members',
  collection: 'members',
  collections: [{ name: 'members', indexes: [{ fields: ['email'] }, { fields: ['account_id', 'invited_at'] }] }],
  documentIds: (e: RecordedEvent) => (MEMBER_EVENTS.has(e.type) && e.streamId.startsWith('team-') ? [String(e.data.member)] : []),
  project: (doc, event) => projectMember(doc, event as unknown as TeamEvent),
};

/** Account-wide team settings (two-factor required). */
export const teamsProjection: Projection<TeamDoc> = {
  name: 'teams',
  collection: 'teams',
  collections: [{ name: 'teams', indexes: [] }],
  documentIds: (e: RecordedEvent) => (e.type === 'team.two_factor_requirement_set' ? [String(e.data.account_id)] : []),
  project: (_doc, event, id) => ({ id, require_two_factor: event.data.required === true }),
};
