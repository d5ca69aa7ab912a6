/**
 * From which entry of a subscription's timeline (oldest first) the dashboard offers "the state after
 * this event": from the subscription's own first event on. An entry before it (an event of another
 * object tagged with the subscription and written earlier, such as a checkout session completed
 * before the subscription it sold was written) has no state of the subscription to show, so it gets
 * no link (its `as_of` would be a 404). -1: no entry of its own (nothing is offered).
 */
export function stateAfterFrom(timeline: ReadonlyArray<{ data?: { object?: { id?: unknown } } }>, subscriptionId: string): number {
  return timeline.findIndex((e) => e.data?.object?.id === subscriptionId);
}

/** Who caused an entry of a timeline (the feed's `actor`), as the history query gives it for the dashboard. */
export interface TimelineActor {
  type: 'dashboard' | 'portal' | 'cli';
  member?: string;
}

/**
 * Who did it, in the page's words: a member by their e-mail and role ("ana@x.com (Soporte)"), looked
 * up in the account's team (`members`: the member as they are now; one removed since is named by id),
 * the customer in the portal, the CLI. Null when the event names nobody (the API with a key, the
 * service's own schedule): the timeline then says nothing about who.
 */
export function actorWords(
  t: (key: string, params?: Record<string, string>) => string,
  actor: TimelineActor | null | undefined,
  members: ReadonlyMap<string, { email: string | null; role: string } | null>,
): string | null {
  if (!actor) return null;
  if (actor.type === 'portal') return t('dash.timeline.by_portal');
  if (actor.type === 'cli') return t('dash.timeline.by_cli');
  if (actor.type !== 'dashboard') return null;
  const member = actor.member ? members.get(actor.member) : null;
  if (member?.email) return t('dash.timeline.by_member', { who: `${member.email} (${t(`dash.role.${member.role}`)})` });
  return actor.member ? t('dash.timeline.by_former_member', { id: actor.member }) : t('dash.timeline.by_dashboard');
}
