import { ENDS_SESSIONS, type TeamEvent } from './team.events.js';
import type { MemberState, TeamState } from './team.state.js';

const withMember = (state: TeamState, id: string, change: (m: MemberState) => MemberState): TeamState => {
  const member = state.members[id];
  return member ? { ...state, members: { ...state.members, [id]: change(member) } } : state;
};

export function evolveTeam(state: TeamState, event: TeamEvent): TeamState {
  const next = apply(state, event);
  if (!ENDS_SESSIONS.has(event.type) || !('member' in event.data)) return next;
  return withMember(next, event.data.member, (m) => ({ ...m, session_epoch: m.session_epoch + 1 }));
}

function apply(state: TeamState, event: TeamEvent): TeamState {
  switch (event.type) {
    case 'member.invited': {
      const d = event.data;
      const member: MemberState = { id: d.member, email: d.email, role: d.role, status: 'invited', invitation: { id: d.invitation, expires_at: d.expires_at }, password: null, two_factor: null, resets: {}, session_epoch: 0 };
      return { ...state, members: { ...state.members, [d.member]: member } };
    }
    case 'member.invitation_revoked':
    case 'member.removed': {
      const { [event.data.member]: _gone, ...members } = state.members;
      return { ...state, members };
    }
    case 'member.joined':
      return withMember(state, event.data.member, (m) => ({ ...m, email: event.data.email, status: 'active', invitation: null, password: event.data.credential }));
    case 'member.role_changed':
      return withMember(state, event.data.member, (m) => ({ ...m, role: event.data.role }));
    case 'member.disabled':
      return withMember(state, event.data.member, (m) => ({ ...m, status: 'disabled' }));
    case 'member.enabled':
      return withMember(state, event.data.member, (m) => ({ ...m, status: 'active' }));
    case 'member.password_reset_requested':
      return withMember(state, event.data.member, (m) => ({ ...m, resets: { ...m.resets, [event.data.reset]: { expires_at: event.data.expires_at } } }));
    case 'member.password_reset':
      // Every pending reset ends with the one used.
      return withMember(state, event.data.member, (m) => ({ ...m, password: event.data.credential, resets: {} }));
    case 'member.password_changed':
      return withMember(state, event.data.member, (m) => ({ ...m, password: event.data.credential, resets: {} }));
    case 'member.two_factor_enabled':
      return withMember(state, event.data.member, (m) => ({ ...m, two_factor: { credential: event.data.credential, used: [] } }));
    case 'member.two_factor_disabled':
      return withMember(state, event.data.member, (m) => ({ ...m, two_factor: null }));
    case 'member.recovery_code_used':
      return withMember(state, event.data.member, (m) => (m.two_factor ? { ...m, two_factor: { ...m.two_factor, used: [...m.two_factor.used, event.data.index] } } : m));
    case 'team.two_factor_requirement_set':
      return { ...state, require_two_factor: event.data.required };
    default:
      return state;
  }
}
