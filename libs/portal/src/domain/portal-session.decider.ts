import type { Decider, DomainEvent } from '#shared/decider.js';
import { DomainError, invalidParam, notFound } from '#shared/errors.js';
import { type Owner, ownedBy } from '#shared/owner.js';

/** How long a portal link can be opened after it is created (it opens once). */
export const PORTAL_LINK_TTL_MS = 15 * 60 * 1000;
/** How long the browser session the link starts lasts (absolute, from the opening). */
export const PORTAL_BROWSER_SESSION_TTL_MS = 60 * 60 * 1000;

export interface PortalSessionFields {
  id: string;
  customer: string;
  return_url: string | null;
  created: string;
  expires_at: string;
  opened_at: string | null;
}

export interface PortalSessionState {
  exists: boolean;
  owner: Owner | null;
  fields: PortalSessionFields | null;
}

export type PortalSessionCreated = DomainEvent<'portal_session.created', PortalSessionFields & { account_id: string; mode: Owner['mode'] }>;
export type PortalSessionOpened = DomainEvent<'portal_session.opened', { id: string; opened_at: string }>;
export type PortalSessionEvent = PortalSessionCreated | PortalSessionOpened;

export type PortalSessionCommand =
  | { type: 'CreatePortalSession'; owner: Owner; sessionId: string; customer: string; returnUrl: string | null; now: Date }
  /** Opening carries no owner: the link itself is the credential (its id is derived from the secret in it). */
  | { type: 'OpenPortalSession'; sessionId: string; now: Date };

export const portalSessionStream = (id: string) => `portalsession-${id}`;

/** A used or expired link: 410, nothing written. */
const gone = (code: string, message: string) => new DomainError(code, message, null, 410);

/**
 * A customer-portal session: created over the API for one customer, opened once by the link it
 * carries before `expires_at` (of two tabs opening it at once, one wins: the second open is decided
 * against `portal_session.opened`).
 */
export const portalSessionDecider: Decider<PortalSessionCommand, PortalSessionState, PortalSessionEvent> = {
  initialState: { exists: false, owner: null, fields: null },
  decide(command, state) {
    switch (command.type) {
      case 'CreatePortalSession': {
        if (state.exists) return [];
        if (command.returnUrl !== null && !/^https?:\/\/[^\s]+$/i.test(command.returnUrl)) throw invalidParam('return_url', 'return_url must be an http(s) URL');
        const created = command.now.toISOString();
        return [
          {
            type: 'portal_session.created',
            data: {
              id: command.sessionId,
              customer: command.customer,
              return_url: command.returnUrl,
              created,
              expires_at: new Date(command.now.getTime() + PORTAL_LINK_TTL_MS).toISOString(),
              opened_at: null,
              account_id: command.owner.accountId,
              mode: command.owner.mode,
            },
          },
        ];
      }
      case 'OpenPortalSession': {
        if (!state.exists || !state.fields) throw notFound('portal session', command.sessionId);
        if (state.fields.opened_at) throw gone('portal_link_used', 'This portal link has already been used. Ask for a new one.');
        if (command.now.getTime() >= Date.parse(state.fields.expires_at)) throw gone('portal_link_expired', 'This portal link has expired. Ask for a new one.');
        return [{ type: 'portal_session.opened', data: { id: command.sessionId, opened_at: command.now.toISOString() } }];
      }
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'portal_session.created': {
        const { account_id, mode, ...fields } = event.data;
        return { exists: true, owner: { accountId: account_id, mode }, fields };
      }
      case 'portal_session.opened':
        return { ...state, fields: state.fields ? { ...state.fields, opened_at: event.data.opened_at } : null };
    }
  },
};

export const isOwnPortalSession = (state: PortalSessionState, owner: Owner) => ownedBy(state, owner);
