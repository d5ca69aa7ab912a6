import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import fastifyHelmet from '@fastify/helmet';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';

/** Path prefixes served as pages (HTML, forms) rather than the JSON API. */
export const PAGE_PREFIXES = ['/checkout', '/portal', '/dashboard'];

export const isPagePath = (url: string | undefined) => !!url && PAGE_PREFIXES.some((p) => url === p || url.startsWith(`${p}/`) || url.startsWith(`${p}?`));

/**
 * The Fastify plugins pages need, registered once on the service's Fastify instance:
 * cookies and CSRF tokens (@fastify/cookie + @fastify/csrf-protection), the security headers
 * (@fastify/helmet, applied by the page renderer only, so the JSON API and /docs are unchanged).
 * Form bodies: NestJS's Fastify adapter already registers an `application/x-www-form-urlencoded`
 * parser (fast-querystring, the parser @fastify/formbody wraps; Fastify refuses a second parser for
 * the same type, so @fastify/formbody is not registered). They are accepted on page paths only: the
 * JSON API answers a form post with 415.
 */
export async function registerWebPlatform(app: NestFastifyApplication, options: { secureCookies: boolean }): Promise<void> {
  await app.register(fastifyCookie as never);
  await app.register(fastifyCsrf as never, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: '_csrf',
    cookieOpts: { path: '/', sameSite: 'lax', httpOnly: true, secure: options.secureCookies },
  } as never);
  await app.register(fastifyHelmet as never, { global: false } as never);
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('preParsing', async (request, reply) => {
    const type = String(request.headers['content-type'] ?? '');
    if (type.startsWith('application/x-www-form-urlencoded') && !isPagePath(request.url)) {
      return reply
        .status(415)
        .type('application/json')
        .send({ error: { type: 'invalid_request_error', code: 'unsupported_media_type', message: 'Send the body as application/json.', param: null } });
    }
  });
}
