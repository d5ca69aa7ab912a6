import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '#shared/errors.js';
import { type Locale, mergeCatalogs, resolveLocale, type Translate } from './i18n.js';
import { API_ERROR_MESSAGES, apiErrorText } from './api-error-messages.js';
import { STATUS_MESSAGES } from './status-messages.js';
import { assetDir, PageRenderer } from './page-renderer.js';

/** A failure a page shows as a page: not found, CSRF, a bad form. */
export class PageError extends Error {
  constructor(
    readonly status: number,
    readonly kind: 'not_found' | 'csrf' | 'bad_request' | 'forbidden',
    message = kind,
  ) {
    super(message);
    this.name = 'PageError';
  }
}

const errorPages = new PageRenderer(assetDir(import.meta.url, '../views'), mergeCatalogs(API_ERROR_MESSAGES, STATUS_MESSAGES));
const logger = new Logger('pages');

/** What went wrong, before it is worded in a page's language. */
export interface PageFailure {
  status: number;
  /** Message key of the heading (`error.not_found.title`, …). */
  titleKey: string;
  /** The explanation in the page's words (an API refusal worded by its code and param, never its English message). */
  body: (t: Translate, locale: Locale) => string;
  /** The request id shown on a 5xx. */
  reference: string | null;
}

/**
 * A part of the site that shows its own failures in its own layout (the dashboard: its menu, its
 * footer), registered by path prefix. The part gets the failure and sends the page; returning null
 * leaves it to the plain error page.
 */
export type ErrorPagePresenter = (request: FastifyRequest, reply: FastifyReply, failure: PageFailure) => FastifyReply | null;
const presenters: Array<{ prefix: string; present: ErrorPagePresenter }> = [];
export function registerErrorPages(prefix: string, present: ErrorPagePresenter): void {
  if (!presenters.some((p) => p.prefix === prefix)) presenters.push({ prefix, present });
}

/** The failure an exception on a page stands for. */
export function pageFailureOf(request: FastifyRequest, exception: unknown): PageFailure {
  const failure = (status: number, titleKey: string, body: PageFailure['body']): PageFailure => ({ status, titleKey, body, reference: status >= 500 ? String(request.id) : null });
  const fixed = (key: string) => (t: Translate) => t(key);
  if (exception instanceof PageError) {
    const message = exception.kind === 'bad_request' && exception.message !== 'bad_request' ? exception.message : null;
    return failure(exception.status, `error.${exception.kind}.title`, message ? () => message : fixed(`error.${exception.kind}.body`));
  }
  if (exception instanceof ApiError && exception.status < 500) {
    if (exception.status === 404) return failure(404, 'error.not_found.title', fixed('error.not_found.body'));
    return failure(exception.status, 'error.bad_request.title', (t, locale) => apiErrorText(exception, { t, locale, field: (param) => param }));
  }
  if (exception instanceof HttpException && exception.getStatus() < 500) {
    const status = exception.getStatus();
    return status === 404 ? failure(404, 'error.not_found.title', fixed('error.not_found.body')) : failure(status, 'error.bad_request.title', fixed('error.bad_request.title'));
  }
  const fastify = exception as { statusCode?: number };
  if (typeof fastify?.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500) {
    return failure(fastify.statusCode, 'error.bad_request.title', fixed('error.bad_request.title'));
  }
  return failure(500, 'error.title', fixed('error.internal.body'));
}

/**
 * Any failure on a page becomes a friendly HTML page in the visitor's language (never a JSON body,
 * never a stack trace): 404 and CSRF have their own wording; other 4xx say what was refused in the
 * page's words; a 5xx is logged with the request id and shows that id as a reference. A part of the
 * site with a layout of its own (registerErrorPages) shows it there.
 */
export function sendErrorPage(request: FastifyRequest, reply: FastifyReply, exception: unknown): FastifyReply {
  const failure = pageFailureOf(request, exception);
  if (failure.status >= 500) logger.error({ msg: 'page error', reqId: request.id, err: String((exception as Error)?.stack ?? exception) });
  const path = request.url ?? '';
  for (const { prefix, present } of presenters) {
    if (path !== prefix && !path.startsWith(`${prefix}/`) && !path.startsWith(`${prefix}?`)) continue;
    try {
      const sent = present(request, reply, failure);
      if (sent) return sent;
    } catch (error) {
      logger.error({ msg: 'error page of its own failed; the plain one is shown', reqId: request.id, err: String((error as Error)?.stack ?? error) });
    }
  }
  const query = (request.query ?? {}) as Record<string, unknown>;
  const body = (request.body && typeof request.body === 'object' ? request.body : {}) as Record<string, unknown>;
  const locale = resolveLocale(query.locale ?? body.locale);
  const t = errorPages.helpers(locale).t;
  const title = t(failure.titleKey);
  return errorPages.send(reply, 'error', { message: failure.body(t, locale), reference: failure.reference, heading: title }, { locale, title, status: failure.status });
}

/** Nest filter for page controllers (`@UseFilters(PageErrorFilter)`). */
@Catch()
export class PageErrorFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendErrorPage(http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>(), exception);
  }
}
