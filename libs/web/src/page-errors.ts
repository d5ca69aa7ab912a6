import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../shared/src/errors.js';
import { resolveLocale } from './i18n.js';
import { assetDir, PageRenderer } from './page-renderer.js';

/** A failure a page shows as a page: not found, CSRF, a bad form. */
export class PageError extends Error {
  constructor(
    readonly status: number,
    readonly kind: 'not_found' | 'csrf' | 'bad_request',
    message = kind,
  ) {
    super(message);
    this.name = 'PageError';
  }
}

const errorPages = new PageRenderer(assetDir(import.meta.url, '../views'), { 'es-CO': {}, en: {} });
const logger = new Logger('pages');

/**
 * Any failure on a page becomes a friendly HTML page in the visitor's language (never a JSON body,
 * never a stack trace): 404 and CSRF have their own wording; other 4xx show the rule's message; a 5xx
 * is logged with the request id and shows that id as a reference.
 */
export function sendErrorPage(request: FastifyRequest, reply: FastifyReply, exception: unknown): FastifyReply {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const body = (request.body && typeof request.body === 'object' ? request.body : {}) as Record<string, unknown>;
  const locale = resolveLocale(query.locale ?? body.locale);
  const t = errorPages.helpers(locale).t;
  let status = 500;
  let title = t('error.title');
  let message = t('error.internal.body');
  if (exception instanceof PageError) {
    status = exception.status;
    title = t(`error.${exception.kind}.title`);
    message = t(`error.${exception.kind}.body`);
    if (exception.kind === 'bad_request' && exception.message !== 'bad_request') message = exception.message;
  } else if (exception instanceof ApiError && exception.status < 500) {
    status = exception.status;
    if (status === 404) {
      title = t('error.not_found.title');
      message = t('error.not_found.body');
    } else {
      title = t('error.bad_request.title');
      message = exception.message;
    }
  } else if (exception instanceof HttpException && exception.getStatus() < 500) {
    status = exception.getStatus();
    title = status === 404 ? t('error.not_found.title') : t('error.bad_request.title');
    message = status === 404 ? t('error.not_found.body') : t('error.bad_request.title');
  } else {
    const fastify = exception as { statusCode?: number };
    if (typeof fastify?.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500) {
      status = fastify.statusCode;
      title = t('error.bad_request.title');
      message = t('error.bad_request.title');
    }
  }
  if (status >= 500) logger.error({ msg: 'page error', reqId: request.id, err: String((exception as Error)?.stack ?? exception) });
  return errorPages.send(reply, 'error', { message, reference: status >= 500 ? String(request.id) : null, heading: title }, { locale, title, status });
}

/** Nest filter for page controllers (`@UseFilters(PageErrorFilter)`). */
@Catch()
export class PageErrorFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendErrorPage(http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>(), exception);
  }
}
