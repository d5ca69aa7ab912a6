import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { EVENT_PATTERNS, PUBLIC_EVENT_PREFIXES, PUBLIC_EVENT_TYPES } from '#events/public-event-types.js';
import { publicResourceProjections } from '#projections/public-resources.js';

/**
 * The catalog of public event types (libs/events/src/public-event-types.ts) is complete and exact.
 * The event types of the code are read from the sources (every `DomainEvent<'x.y', …>` and every
 * `type: 'x.y'` literal under libs/ and projections/), so an event added anywhere is seen. The
 * feed's rule decides: an event reaches the feed when its prefix is the `object` of a public
 * resource projection (projections/event-feed.ts); the prefixes below never do.
 */
const INTERNAL_PREFIXES: Record<string, string> = {
  account: 'merchant accounts, their gateways and retry policy (no public resource)',
  checkout_payment: "a checkout session's payment attempts (the session shows them in last_payment)",
  checkout_signin: "the hosted page's e-mail sign-in steps",
  checkout_buyer: "a session never tied to a customer whose buyer's entries were forgotten on schedule (docs/personal-data.md)",
  coupon_code: 'the claim of a coupon code, unique per account and mode',
  coupon_redemption: "a redemption held while a checkout session's payment is in flight",
  customer_email: 'the claim of a customer e-mail, unique per account and mode',
  delivery: "webhook deliveries (the endpoint's delivery attempts list them)",
  fiscal_number: 'the claim of a fiscal document number, once per account and mode',
  invoicing_settings: "the account's invoicing settings and its numbering",
  member: 'team members: invitations, roles, passwords and two-factor (the security log shows them)',
  payment_link_use: "a payment link's use held while a checkout session's payment is in flight",
  platform: 'the default account claimed at first start',
  portal_session: 'customer portal sessions (short-lived, not a feed resource)',
  security: 'sign-in facts of the security log (stream security-<acct>)',
  team: "the team's settings (two-factor required)",
  webhook_replay: "an endpoint's replays (GET /v1/webhook_endpoints/{id}/replays shows them)",
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** Every dotted event type the code declares or writes, with a file that names it. */
function eventTypesOfTheCode(): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of [...sources('libs'), ...sources('projections')]) {
    if (file.endsWith(join('events', 'src', 'public-event-types.ts'))) continue;
    const text = readFileSync(file, 'utf8');
    for (const pattern of [/DomainEvent<\s*'([a-z_]+(?:\.[a-z_]+)+)'/g, /\btype: '([a-z_]+(?:\.[a-z_]+)+)'/g]) {
      for (const match of text.matchAll(pattern)) if (!found.has(match[1])) found.set(match[1], relative(process.cwd(), file));
    }
  }
  return found;
}

const prefixOf = (type: string) => type.slice(0, type.indexOf('.'));
const feedObjects = new Set(publicResourceProjections().map((p) => p.object ?? p.category!));

test('the sources are scanned (the scan finds the events it must)', () => {
  const types = eventTypesOfTheCode();
  for (const known of ['subscription.created', 'charge.paid', 'delivery.succeeded', 'customer_email.claimed']) expect(types.has(known)).toBe(true);
});

test('every event type of the code is either in the public catalog or of an internal prefix, as the feed decides', () => {
  const types = eventTypesOfTheCode();
  const unclassified: string[] = [];
  const missing: string[] = [];
  const wronglyPublic: string[] = [];
  for (const [type, file] of types) {
    const prefix = prefixOf(type);
    const inFeed = feedObjects.has(prefix);
    const listed = (PUBLIC_EVENT_TYPES as readonly string[]).includes(type);
    if (inFeed && !listed) missing.push(`${type} (${file}): reaches the feed, add it to PUBLIC_EVENT_TYPES`);
    if (!inFeed && listed) wronglyPublic.push(`${type}: never reaches the feed`);
    if (!inFeed && !(prefix in INTERNAL_PREFIXES)) unclassified.push(`${type} (${file}): neither a feed resource's nor a known internal prefix; add it to the catalog or to INTERNAL_PREFIXES here`);
  }
  expect({ missing, wronglyPublic, unclassified }).toEqual({ missing: [], wronglyPublic: [], unclassified: [] });
});

test('the catalog names only types the code has, and no internal prefix is a feed resource', () => {
  const types = eventTypesOfTheCode();
  expect(PUBLIC_EVENT_TYPES.filter((t) => !types.has(t))).toEqual([]);
  expect(Object.keys(INTERNAL_PREFIXES).filter((p) => feedObjects.has(p))).toEqual([]);
  expect(new Set(PUBLIC_EVENT_TYPES).size).toBe(PUBLIC_EVENT_TYPES.length);
  expect(PUBLIC_EVENT_PREFIXES.every((p) => feedObjects.has(p))).toBe(true);
  expect(EVENT_PATTERNS).toEqual(expect.arrayContaining(['*', 'subscription.*', 'charge.paid']));
});
