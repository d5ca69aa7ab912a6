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
