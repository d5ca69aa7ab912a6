import { cardBrand, formatDate, formatMoney } from '#web/format.js';
import type { Locale, Translate } from '#web/i18n.js';
import { periodWords } from './dashboard-list-rows.js';

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
  t: Translate,
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

type Doc = Record<string, any>;

/** A feed entry as the history gives it to the dashboard: its type, its object as it stood after the event, who did it. */
export interface TimelineEntry {
  type: string;
  data?: { object?: Doc };
  actor?: TimelineActor | null;
}

/** What the sentences need: the page's words and language, the team's members, the payment methods the entries name (by id). */
export interface TimelineWords {
  t: Translate;
  locale: Locale;
  members: ReadonlyMap<string, { email: string | null; role: string } | null>;
  methods?: ReadonlyMap<string, Doc>;
}

/**
 * The payment method a charge was made with: its own, else (a charge paid with one-off card details)
 * the method its collection records as having paid it in a later entry of the same timeline.
 */
export function chargeMethodId(entries: ReadonlyArray<TimelineEntry>, charge: Doc): string | null {
  if (typeof charge.payment_method === 'string') return charge.payment_method;
  if (charge.status !== 'succeeded') return null;
  const paid = entries.find((e) => e.type === 'collection.paid' && e.data?.object?.id === charge.collection);
  const pm = paid?.data?.object?.payment_method;
  return typeof pm === 'string' ? pm : null;
}

/** The payment methods the timeline's sentences name (to be read once each for the page). */
export function timelineMethodIds(entries: ReadonlyArray<TimelineEntry>): string[] {
  const ids = entries.filter((e) => e.type.startsWith('charge.') && e.data?.object).map((e) => chargeMethodId(entries, e.data!.object!));
  return [...new Set(ids.filter((id): id is string => !!id))];
}

/**
 * Each entry of a subscription's timeline as a sentence in the page's language, built from the
 * event's object as it stood after the event: "Cobro de $ 49.900 aprobado con Visa •••• 4242",
 * "Suscripción creada: Plan Pro · $ 49.900 al mes", "ana@x.com (Soporte) canceló de inmediato".
 * A member of the team who did it is the sentence's subject where the event has such a sentence
 * (`tl.<type>.who`); otherwise who did it stays beside the sentence (`by`, actorWords). A type
 * without words reads "Evento: <type>".
 */
export function timelineSentences(entries: ReadonlyArray<TimelineEntry>, words: TimelineWords): Array<{ sentence: string; by: string | null }> {
  return entries.map((e) => timelineSentence(e, entries, words));
}

export function timelineSentence(entry: TimelineEntry, entries: ReadonlyArray<TimelineEntry>, words: TimelineWords): { sentence: string; by: string | null } {
  const { t, locale } = words;
  const has = (key: string) => t(key) !== key;
  const o: Doc = entry.data?.object ?? {};
  const money = (amount: unknown, currency: unknown = o.currency) =>
    typeof amount === 'string' && amount !== '' && typeof currency === 'string' && currency !== '' ? formatMoney(amount, currency, locale) : null;
  const date = (iso: unknown) => (typeof iso === 'string' ? formatDate(iso, locale) || null : null);
  const key = `tl.${entry.type}`;
  if (!has(key)) return { sentence: t('tl.fallback', { type: entry.type }), by: actorWords(t, entry.actor, words.members) };

  const params: Record<string, string> = {};
  let variant = key;
  const needs = (name: string, value: string | null, plain = `${key}.plain`) => {
    if (value) params[name] = value;
    else if (has(plain)) variant = plain;
    else params[name] = '—';
  };
  const [group] = entry.type.split('.');
  switch (entry.type) {
    case 'subscription.created':
      needs('plan', planWords(t, locale, o));
      break;
    case 'subscription.pending_canceled':
    case 'subscription.will_end':
      needs('date', date(o.cancel_at ?? o.current_period_end));
      break;
    case 'subscription.paused':
      needs('date', date(o.resumes_at));
      break;
    case 'subscription.renewed': {
      const collection = entries.find((c) => c.type === 'collection.created' && c.data?.object?.id === o.latest_collection)?.data?.object;
      const amount = collection ? money(collection.total, collection.currency) : null;
      if (amount) params.amount = amount;
      else {
        variant = `${key}.plain`;
        params.date = date(o.current_period_end) ?? '—';
      }
      break;
    }
    default:
      if (group === 'collection') needs('amount', money(entry.type === 'collection.refunded' ? o.amount_refunded : (o.total ?? o.amount_due)));
      else if (group === 'charge' || group === 'transaction') needs('amount', money(o.amount));
  }

  // A member of the team who did it, as the subject of the sentence where the event has one.
  const member = entry.actor?.type === 'dashboard' && entry.actor.member ? words.members.get(entry.actor.member) : null;
  const subjectKey = `${key}.who`;
  let sentence: string;
  let by: string | null;
  if (member?.email && variant === key && has(subjectKey)) {
    sentence = t(subjectKey, { ...params, who: `${member.email} (${t(`dash.role.${member.role}`)})` });
    by = null;
  } else {
    sentence = t(variant, params);
    by = actorWords(t, entry.actor, words.members);
  }
  if (group === 'charge' && (entry.type === 'charge.paid' || entry.type === 'charge.failed')) {
    const pmId = chargeMethodId(entries, o);
    const method = methodWords(pmId ? words.methods?.get(pmId) : undefined);
    if (method) sentence = t('tl.method', { sentence, method });
  }
  return { sentence, by };
}

/** "Visa •••• 4242" of a payment method (a card's brand and last four; a wallet's last four), null without either. */
function methodWords(method: Doc | undefined): string | null {
  if (!method) return null;
  const brand = cardBrand(method.card?.brand);
  const last4 = method.card?.last4 ?? method.wallet?.account_last4;
  const text = [brand, last4 ? `•••• ${last4}` : ''].filter(Boolean).join(' ');
  return text || null;
}

/** "Plan Pro · $ 49.900 al mes" from a subscription's first item (+N more), null without items. */
function planWords(t: Translate, locale: Locale, sub: Doc): string | null {
  const items: Doc[] = Array.isArray(sub.items) ? sub.items : [];
  const [first] = items;
  if (!first) return null;
  const price: Doc = first.price ?? {};
  const name = first.product?.name ?? price.product_id ?? '';
  const each = price.pricing_model === 'ntp' ? first.amount : price.unit_price;
  const amount = typeof each === 'string' && price.currency ? formatMoney(each, price.currency, locale) : '';
  const period = periodWords(t, price.billing_period ?? sub.billing_period, price.billing_interval ?? sub.billing_interval);
  const plan = [name, [amount, period].filter(Boolean).join(' ')].filter(Boolean).join(' · ');
  return items.length > 1 ? `${plan} ${t('dash.list.more_items', { n: items.length - 1 })}` : plan || null;
}
