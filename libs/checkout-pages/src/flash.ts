import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiError } from '#shared/errors.js';
import { apiErrorText } from '#web/api-error-messages.js';
import type { Locale, Translate } from '#web/i18n.js';

/**
 * Post/redirect/get for the checkout pages: a form post never answers with a page. What the next page
 * must say about the post (a refused field, an API refusal, a decline) and what the customer typed
 * that is harmless to show again travel in a short-lived cookie, HttpOnly and scoped to the page's
 * own path, read and cleared by the page's next GET. The cookie holds codes, never words: the page
 * words them in its own language. Never card numbers or CVCs, and never a checkout token (that stays
 * in its own cookie; nothing of this goes into a URL).
 */
export interface PageFlash {
  /** Which part of the page the message belongs to (the checkout session's coupon, identification or payment). */
  at?: 'coupon' | 'identify' | 'pay';
  /** Form fields refused before anything was sent (`card_number`, `bank_code`, …). */
  fields?: string[];
  /** A refusal or a decline: its code, param, type and decline code, worded by the next page. */
  refusal?: FlashRefusal;
  /** What the customer typed that may be shown again. */
  values?: Record<string, string>;
}

export interface FlashRefusal {
  code: string;
  param: string | null;
  type: string;
  decline_code: string | null;
  /** The API's English message, kept only for the values its wording names (an id, a state); never shown. */
  message: string;
  attempts_left: number | null;
}

/** A form field's message key (payment-form.ts's checks). */
export const FIELD_MESSAGES: Record<string, string> = {
  method: 'err.method',
  card_number: 'err.card_number',
  card_exp: 'err.card_exp',
  card_cvc: 'err.card_cvc',
  bank_code: 'err.bank',
  wallet_account: 'err.wallet',
};

/** Fields kept for the next page: never `card_number` nor `card_cvc`. */
const KEPT = /^(method|card_exp|card_holder|bank_code|consent_terms|consent_privacy|ntp_amount|cf_[A-Za-z0-9_-]{1,64}|ship_[a-z0-9_]{1,20})$/;
const MAX_COOKIE = 3500;

type CookieReply = FastifyReply & {
  setCookie(name: string, value: string, options: Record<string, unknown>): FastifyReply;
  clearCookie(name: string, options: Record<string, unknown>): FastifyReply;
};
type CookieRequest = FastifyRequest & { cookies?: Record<string, string | undefined> };

/** The values of a posted form worth showing again (bounded, without card number or CVC). */
export function keptValues(fields: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).filter(([k, v]) => KEPT.test(k) && typeof v === 'string' && v.length <= 300));
}

/** The refusal of an ApiError as the flash keeps it. */
export function refusalOf(err: { code: string; param?: string | null; type: string; message: string; extra?: Record<string, unknown> | null }): FlashRefusal {
  const extra = (err.extra ?? {}) as { decline_code?: unknown; attempts_left?: unknown };
  return {
    code: err.code,
    param: err.param ?? null,
    type: err.type,
    decline_code: typeof extra.decline_code === 'string' ? extra.decline_code : null,
    message: String(err.message ?? '').slice(0, 300),
    attempts_left: typeof extra.attempts_left === 'number' ? extra.attempts_left : null,
  };
}

export function setFlash(reply: FastifyReply, name: string, path: string, flash: PageFlash, secure: boolean): void {
  let value = Buffer.from(JSON.stringify(flash), 'utf8').toString('base64url');
  if (value.length > MAX_COOKIE) value = Buffer.from(JSON.stringify({ ...flash, values: {} }), 'utf8').toString('base64url');
  (reply as CookieReply).setCookie(name, value, { path, httpOnly: true, sameSite: 'lax', secure });
}

/** The flash the previous post left for this page (cleared: a reload shows the page as it is). */
export function takeFlash(request: FastifyRequest, reply: FastifyReply, name: string, path: string): PageFlash | null {
  const raw = (request as CookieRequest).cookies?.[name];
  if (!raw) return null;
  (reply as CookieReply).clearCookie(name, { path });
  try {
    const parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as PageFlash;
    if (!parsed || typeof parsed !== 'object') return null;
    const flash: PageFlash = {};
    if (parsed.at === 'coupon' || parsed.at === 'identify' || parsed.at === 'pay') flash.at = parsed.at;
    if (Array.isArray(parsed.fields)) flash.fields = parsed.fields.filter((f) => typeof f === 'string' && f in FIELD_MESSAGES);
    const r = parsed.refusal;
    if (r && typeof r === 'object' && typeof r.code === 'string' && /^[a-z_]{1,64}$/.test(r.code)) {
      flash.refusal = {
        code: r.code,
        param: typeof r.param === 'string' ? r.param.slice(0, 200) : null,
        type: typeof r.type === 'string' ? r.type : 'invalid_request_error',
        decline_code: typeof r.decline_code === 'string' ? r.decline_code : null,
        message: typeof r.message === 'string' ? r.message.slice(0, 300) : '',
        attempts_left: typeof r.attempts_left === 'number' ? r.attempts_left : null,
      };
    }
    if (parsed.values && typeof parsed.values === 'object') flash.values = keptValues(parsed.values as Record<string, string>);
    return flash;
  } catch {
    return null;
  }
}

/**
 * A refusal in the page's words: the checkout's own (`code.<code>.<param's last part>`, `code.<code>.<param's root>`,
 * `code.<code>`),
 * else the API refusals' catalog by code and param (libs/web/src/api-error-messages.ts), never the
 * API's English. `t` must carry API_ERROR_MESSAGES (the checkout pages' renderer does).
 */
export function refusalText(t: Translate, locale: Locale, r: FlashRefusal): string {
  const last = r.param ? (/\[([^\]]+)\]$/.exec(r.param)?.[1] ?? r.param) : '';
  const root = r.param ? r.param.replace(/\[.*$/, '') : '';
  for (const key of [last && `code.${r.code}.${last}`, root && `code.${r.code}.${root}`, `code.${r.code}`]) {
    if (!key) continue;
    const words = t(key);
    if (words !== key) return words;
  }
  return apiErrorText({ code: r.code, param: r.param, type: r.type as ApiError['type'], message: r.message, extra: { decline_code: r.decline_code } }, { t, locale, field: (param) => fieldLabel(t, param) });
}

/** A parameter of the checkout's refusals by the label the page shows for it. */
function fieldLabel(t: Translate, param: string): string {
  const labels: Record<string, string> = { email: 'cs.email', name: 'cs.name', phone: 'cs.phone', document_number: 'cs.doc_number', code: 'cs.coupon.code', ntp_amount: 'cs.ntp', shipping_address: 'cs.ship' };
  const root = param.replace(/\[.*$/, '');
  if (labels[root]) return t(labels[root]);
  if (root.startsWith('shipping_address')) return t('cs.ship');
  if (root === 'payment_information' || root === 'payment_method') return t('pay.heading');
  return t('cs.details');
}

