import type { FastifyRequest } from 'fastify';
import type { CommandContext } from '#platform/command-context.js';
import { API_ERROR_MESSAGES } from '#web/api-error-messages.js';
import { mergeCatalogs } from '#web/i18n.js';
import { assetDir, PageRenderer } from '#web/page-renderer.js';
import { STATUS_MESSAGES } from '#web/status-messages.js';
import { CHECKOUT_MESSAGES } from './messages.js';
import { SESSION_MESSAGES } from './session-messages.js';

/** The renderer of the checkout pages (views in libs/checkout-pages/views). */
export const checkoutPages = new PageRenderer(
  assetDir(import.meta.url, '../views'),
  // The API refusals' words (by code) under the checkout's own, which win.
  mergeCatalogs(API_ERROR_MESSAGES, STATUS_MESSAGES, CHECKOUT_MESSAGES, SESSION_MESSAGES),
);

/** The context a page acts in: the object's own account and mode (the page is the customer's, there is no key). */
export function pageContext(request: FastifyRequest, owner: { _account: string; is_test: boolean }): CommandContext {
  return { accountId: owner._account, mode: owner.is_test ? 'test' : 'live', requestId: String(request.id), idempotencyKey: null };
}

/** `?locale=` of a path, kept in links and redirects (only when English was chosen). */
export const withLocale = (path: string, locale: string) => (locale === 'en' ? `${path}${path.includes('?') ? '&' : '?'}locale=en` : path);
