import type { OpenAPIObject } from '@nestjs/swagger';
import { allSchemas, NDJSON_RESPONSES, RESPONSES } from './openapi-schemas.js';

/** Each resource's `object` name and id prefix, by the first segment of its `/v1` path. */
const RESOURCES: Record<string, { name: string; object: string; prefix: string }> = {
  products: { name: 'Product', object: 'product', prefix: 'prod_' },
  prices: { name: 'Price', object: 'price', prefix: 'price_' },
  customers: { name: 'Customer', object: 'customer', prefix: 'cus_' },
  events: { name: 'Event', object: 'event', prefix: 'evt_' },
  payment_methods: { name: 'PaymentMethod', object: 'payment_method', prefix: 'pm_' },
  collections: { name: 'Collection', object: 'collection', prefix: 'col_' },
  charges: { name: 'Charge', object: 'charge', prefix: 'ch_' },
  transactions: { name: 'Transaction', object: 'transaction', prefix: 'tx_' },
  subscriptions: { name: 'Subscription', object: 'subscription', prefix: 'sub_' },
  subscription_items: { name: 'SubscriptionItem', object: 'subscription_item', prefix: 'si_' },
  gateways: { name: 'Gateway', object: 'gateway', prefix: '' },
};

const ERROR_TEXT: Record<string, string> = {
  '400': 'Invalid request: a parameter is missing, unknown or invalid (`param` names it), or a rule refused it',
  '401': 'No valid API key (HTTP Basic with the secret key as user name, or Bearer): unknown, revoked, or rolled and past its expiry',
  '403': 'A restricted key (`rk_`) without the permission this operation needs (`permission_denied`: read for GET, write otherwise, on its resource); nothing was done',
  '402': 'The payment was attempted and declined (`decline_code`, `charge`, `collection`)',
  '404': 'No such object for this account and mode, or unknown URL',
  '409': 'Conflict: the object changed concurrently, its state forbids this, or the Idempotency-Key is in use',
  '413': 'The request body is too large',
  '415': 'The body is not sent as `Content-Type: application/json`',
  '429': 'Too many requests with this key; retry after `Retry-After` seconds',
  '500': 'An internal error (logged; never caused by input)',
  '503': 'Unavailable for now: a store cannot take writes (`store_unavailable`: disk full, read-only, I/O error) or the answer took longer than the handler timeout (`handler_timeout`, the work may still finish); retry after `Retry-After`, with the same Idempotency-Key',
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The resource an operation answers with, from its path (null when the path names no known resource). */
function resourceOf(path: string): { name: string; object: string; prefix: string } | null {
  const parts = path.replace(/^\/v1\//, '').replace(/^test_helpers\//, '').replace(/^account\//, '').split('/');
  if (parts[0] === 'customers' && parts[2] === 'payment_methods') return RESOURCES.payment_methods;
  if (parts[0] === 'subscriptions' && parts[2] === 'history') return RESOURCES.events;
  return RESOURCES[parts[0]] ?? null;
}

/**
 * Completes the generated OpenAPI document so that generated clients are typed: every `/v1`
 * operation gets its 2xx answer (the object, a list of objects, or a deletion) where the controller
 * did not describe it, and every error status it can answer with the shared `Error` schema.
 */
export function describeResponses(document: OpenAPIObject): OpenAPIObject {
  const schemas = (document.components ??= {}).schemas ??= {};
  schemas.Error = {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['type', 'code', 'message', 'param'],
        properties: {
          type: { type: 'string', enum: ['invalid_request_error', 'authentication_error', 'idempotency_error', 'payment_error', 'api_error'] },
          code: { type: 'string', example: 'parameter_invalid' },
          message: { type: 'string' },
          param: { type: 'string', nullable: true, example: 'items[0][price]' },
          decline_code: { type: 'string', description: 'On a payment_error' },
        },
        additionalProperties: true,
      },
    },
  };
  schemas.Deleted = { type: 'object', required: ['id', 'object', 'deleted'], properties: { id: { type: 'string' }, object: { type: 'string' }, deleted: { type: 'boolean', enum: [true] } } };
  // Every resource fully described, and a list schema for each (openapi-schemas.ts).
  Object.assign(schemas, allSchemas());
  for (const [path, methods] of Object.entries(document.paths)) {
    if (!path.startsWith('/v1/')) continue;
    for (const [method, op] of Object.entries(methods as Record<string, any>)) {
      if (!op || typeof op !== 'object' || !op.responses) continue;
      const resource = resourceOf(path);
      const ok = Object.entries(op.responses as Record<string, any>).find(([code]) => code.startsWith('2'));
      const named = RESPONSES[`${method.toUpperCase()} ${path}`];
      if (named) {
        // JSON Lines (the audit export): the schema describes one line.
        const type = NDJSON_RESPONSES.has(`${method.toUpperCase()} ${path}`) ? 'application/x-ndjson' : 'application/json';
        op.responses[ok?.[0] ?? '200'] = { description: ok?.[1]?.description || 'OK', content: { [type]: { schema: ref(named) } } };
      } else if (!ok || !ok[1].content) {
        const isList = method === 'get' && (!/\{[^}]+\}$/.test(path) || /\/(payment_methods|history)$/.test(path));
        const schema =
          method === 'delete' && !/\/discounts\//.test(path)
            ? ref('Deleted')
            : resource
              ? ref(isList ? `${resource.name}List` : resource.name)
              : { type: 'object', additionalProperties: true };
        op.responses[ok?.[0] ?? '200'] = { description: ok?.[1]?.description || 'OK', content: { 'application/json': { schema } } };
      }
      const codes = ['400', '401', '403', '429', '500', '503'];
      if (/\{[^}]+\}/.test(path)) codes.push('404');
      if (method === 'post') codes.push('409', '413', '415');
      if (method === 'post' && /^\/v1\/(subscriptions|collections\/\{id\}\/pay|test_helpers\/collections\/\{id\}\/customer_payment)$/.test(path)) codes.push('402');
      for (const code of codes) {
        op.responses[code] ??= { description: ERROR_TEXT[code], content: { 'application/json': { schema: ref('Error') } } };
        op.responses[code].content ??= { 'application/json': { schema: ref('Error') } };
      }
    }
  }
  return document;
}
