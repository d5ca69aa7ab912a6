import { given } from '#shared/testing/given.js';
import { type PortalSessionEvent, portalSessionDecider } from './portal-session.decider.js';

const owner = { accountId: 'acct_1', mode: 'test' as const };
const t0 = new Date('2026-11-23T10:00:00.000Z');
const created: PortalSessionEvent = {
  type: 'portal_session.created',
  data: { id: 'ps_1', customer: 'cus_1', return_url: null, created: t0.toISOString(), expires_at: '2026-11-23T10:15:00.000Z', opened_at: null, account_id: 'acct_1', mode: 'test' },
};

describe('portal session decider', () => {
  test('created for a customer, the link valid 15 minutes', () => {
    given(portalSessionDecider).when({ type: 'CreatePortalSession', owner, sessionId: 'ps_1', customer: 'cus_1', returnUrl: null, now: t0 }).then([created]);
  });
  test('a return_url must be http(s)', () => {
    given(portalSessionDecider).when({ type: 'CreatePortalSession', owner, sessionId: 'ps_1', customer: 'cus_1', returnUrl: 'javascript:alert(1)', now: t0 }).thenRejects('parameter_invalid', 'return_url');
  });
  test('opens once before it expires', () => {
    const at = new Date('2026-11-23T10:14:59.999Z');
    given(portalSessionDecider, [created]).when({ type: 'OpenPortalSession', sessionId: 'ps_1', now: at }).then([{ type: 'portal_session.opened', data: { id: 'ps_1', opened_at: at.toISOString() } }]);
  });
  test('a used link is refused', () => {
    const opened: PortalSessionEvent = { type: 'portal_session.opened', data: { id: 'ps_1', opened_at: t0.toISOString() } };
    given(portalSessionDecider, [created, opened]).when({ type: 'OpenPortalSession', sessionId: 'ps_1', now: t0 }).thenRejects('portal_link_used');
  });
  test('an expired link is refused; an unknown one is not found', () => {
    given(portalSessionDecider, [created]).when({ type: 'OpenPortalSession', sessionId: 'ps_1', now: new Date('2026-11-23T10:15:00.000Z') }).thenRejects('portal_link_expired');
    given(portalSessionDecider).when({ type: 'OpenPortalSession', sessionId: 'ps_x', now: t0 }).thenRejects('resource_missing');
  });
});
