import type { FastifyRequest } from 'fastify';

/** A posted form's fields as strings (a repeated field keeps its last value; anything else is ignored). */
export function formFields(request: FastifyRequest): Record<string, string> {
  const body = request.body;
  const out: Record<string, string> = {};
  if (!body || typeof body !== 'object') return out;
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (typeof value === 'string') out[key] = value;
    else if (Array.isArray(value) && typeof value[value.length - 1] === 'string') out[key] = value[value.length - 1] as string;
  }
  return out;
}

/** The request's own path and query (for the language switch). */
export const pathOf = (request: FastifyRequest) => request.url;
