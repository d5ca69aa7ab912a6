import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Security of the customer-facing pages.
 *
 * - Content-Security-Policy (through @fastify/helmet's `reply.helmet`): everything from this origin
 *   only, no inline script or style at all (`script-src 'self'`, `style-src 'self'`), no plugins, no
 *   framing (`frame-ancestors 'none'`), forms post only to this origin unless a page names more
 *   (a merchant's return address). Pages need no script; one that does serves it as a same-origin
 *   file.
 * - `Cache-Control: no-store`: pages carry CSRF tokens and payment state.
 * - CSRF: every form carries `_csrf`, checked by `CsrfGuard` (@fastify/csrf-protection with
 *   @fastify/cookie: a secret in an HttpOnly, SameSite=Lax cookie, the form token an HMAC of it).
 */
export interface PageSecurityOptions {
  /** Extra origins forms may post or redirect to (CSP form-action). */
  formAction?: string[];
}

export function pageCsp(options: PageSecurityOptions = {}) {
  return {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:'],
      fontSrc: ["'self'"],
      connectSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'none'"],
      frameAncestors: ["'none'"],
      formAction: ["'self'", ...(options.formAction ?? [])],
    },
  };
}

type HelmetReply = FastifyReply & { helmet?: (opts?: Record<string, unknown>) => unknown };

export function applyPageSecurityHeaders(reply: FastifyReply, options: PageSecurityOptions = {}): void {
  const helmet = (reply as HelmetReply).helmet;
  if (typeof helmet === 'function') {
    helmet({ contentSecurityPolicy: pageCsp(options), crossOriginEmbedderPolicy: false, referrerPolicy: { policy: 'no-referrer' } });
  }
  reply.header('Cache-Control', 'no-store');
}

type CsrfReply = FastifyReply & { generateCsrf?: () => string };
type CsrfServer = { csrfProtection?: (req: FastifyRequest, reply: unknown, next: (err?: unknown) => void) => void };

/** A CSRF token for a form on this page (sets the secret cookie on first use). */
export function csrfToken(reply: FastifyReply): string {
  const generate = (reply as CsrfReply).generateCsrf;
  if (typeof generate !== 'function') throw new Error('registerWebPlatform was not called: no CSRF protection');
  return generate.call(reply);
}

/** Verifies the request's `_csrf` field against its secret cookie; false when missing or wrong. */
export function verifyCsrf(request: FastifyRequest): Promise<boolean> {
  const check = (request.server as unknown as CsrfServer).csrfProtection;
  if (typeof check !== 'function') return Promise.resolve(false);
  return new Promise((resolve) => {
    // The plugin answers a failure with reply.send(error): a stand-in reply turns that into `false`,
    // so the page can render its own friendly error.
    const standIn = { send: () => resolve(false), unsignCookie: () => ({ value: null }) };
    check(request, standIn, (err?: unknown) => resolve(!err));
  });
}
