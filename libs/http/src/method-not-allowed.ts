import type { FastifyInstance } from 'fastify';
import { ApiError } from '#shared/errors.js';

/**
 * 405 with `Allow` for a method the path does not have (PUT/PATCH on `/v1/products/{id}`), instead of
 * the 404 an unknown path gets. Routes are collected as they are registered, so call this before the
 * Nest application's `init()`.
 */
export function registerMethodNotAllowed(fastify: FastifyInstance): void {
  const routes: Array<{ pattern: RegExp; methods: Set<string> }> = [];
  const byUrl = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  fastify.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    let entry = byUrl.get(route.url);
    if (!entry) {
      const source = route.url
        .split('/')
        .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('/');
      entry = { pattern: new RegExp(`^${source}/?$`), methods: new Set() };
      byUrl.set(route.url, entry);
      routes.push(entry);
    }
    for (const m of methods) entry.methods.add(m.toUpperCase());
  });
  fastify.addHook('onRequest', async (request, reply) => {
    if (!request.is404) return;
    const path = request.url.split('?')[0];
    const allowed = new Set<string>();
    for (const route of routes) if (route.pattern.test(path)) for (const m of route.methods) allowed.add(m);
    if (allowed.size === 0 || allowed.has(request.method)) return;
    reply.header('Allow', [...allowed].sort().join(', '));
    throw new ApiError(405, 'invalid_request_error', 'method_not_allowed', `${request.method} is not allowed on ${path}; allowed: ${[...allowed].sort().join(', ')}.`);
  });
}
