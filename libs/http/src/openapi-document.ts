import type { OpenAPIObject } from '@nestjs/swagger';
import { describeResponses } from './openapi-responses.js';

type Node = Record<string, any>;

/**
 * The served OpenAPI document, finished from what @nestjs/swagger generates so that it passes a
 * standard linter (Redocly's recommended rules, redocly.yaml) and generated clients are typed as
 * the service answers: every `/v1` operation's answers (describeResponses), its authentication
 * (HTTP Basic or Bearer, both with the secret key; the health checks need none), price creation as
 * a choice between a recurring and a one-time body, and no component that nothing uses.
 */
export function finishDocument(document: OpenAPIObject): OpenAPIObject {
  // package.json: private, no licence granted (npm's UNLICENSED); there is no licence text to link.
  document.info.license ??= { name: 'UNLICENSED (proprietary: no licence is granted)' };
  describeResponses(document);
  describeAuthentication(document);
  describePriceCreation(document);
  dropUnusedComponents(document);
  return document;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

function operations(document: OpenAPIObject): Array<[string, string, Node]> {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item as Node)
      .filter(([method, op]) => METHODS.includes(method) && op && typeof op === 'object')
      .map(([method, op]): [string, string, Node] => [path, method, op as Node]),
  );
}

/**
 * `/v1` takes the secret key as the Basic user name or as a Bearer token (one of the two); the
 * routes outside `/v1` that declare nothing (the health checks) are public, said with `security: []`.
 */
function describeAuthentication(document: OpenAPIObject): void {
  const schemes = (document.components ??= {}).securitySchemes ??= {};
  schemes.basic = { type: 'http', scheme: 'basic', description: 'Your secret key (sk_test_… or sk_live_…) or a restricted key (rk_test_…, rk_live_…: 403 permission_denied outside its permissions) as the user name, empty password (`curl -u sk_test_…:`).' };
  schemes.bearer = { type: 'http', scheme: 'bearer', description: 'Your secret or restricted key (sk_… or rk_…) as the bearer token (not a JWT).' };
  for (const [path, , op] of operations(document)) {
    if (path.startsWith('/v1/')) op.security = [{ basic: [] }, { bearer: [] }];
    else op.security ??= [];
  }
}

/**
 * `POST /v1/prices` takes one of two bodies told apart by `type`: a recurring price requires
 * `billing_period` and `billing_interval`, a one-time price has neither (the decider's rules), so a
 * generated client sees what its description says.
 */
function describePriceCreation(document: OpenAPIObject): void {
  const schemas = document.components!.schemas! as Record<string, Node>;
  const body = document.paths['/v1/prices']?.post?.requestBody as Node | undefined;
  const base = schemas.CreatePriceDto;
  if (!body || !base?.properties) return;
  const variant = (type: 'recurring' | 'one_time', description: string, required: string[], without: string[]): Node => {
    const properties: Node = { ...base.properties, type: { type: 'string', enum: [type] } };
    for (const field of without) delete properties[field];
    return { type: 'object', description, required: [...new Set([...(base.required ?? []), ...required])], properties };
  };
  schemas.CreateRecurringPrice = variant('recurring', 'A price billed every `billing_interval` `billing_period`s.', ['type', 'billing_period', 'billing_interval'], []);
  schemas.CreateOneTimePrice = variant('one_time', 'A price charged once (no billing period).', ['type'], ['billing_period', 'billing_interval']);
  const ref = (name: string) => `#/components/schemas/${name}`;
  body.content['application/json'].schema = {
    oneOf: [{ $ref: ref('CreateRecurringPrice') }, { $ref: ref('CreateOneTimePrice') }],
    discriminator: { propertyName: 'type', mapping: { recurring: ref('CreateRecurringPrice'), one_time: ref('CreateOneTimePrice') } },
  };
}

/** Removes the components no operation reaches (DTO classes whose answers describeResponses replaced, lists nothing serves). */
function dropUnusedComponents(document: OpenAPIObject): void {
  const components = (document.components ?? {}) as Record<string, Record<string, unknown>>;
  const used = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/') && !used.has(value)) {
        used.add(value);
        const [, , section, name] = value.split('/');
        visit(components[section]?.[name]);
      } else if (key === 'mapping' && value && typeof value === 'object') {
        for (const target of Object.values(value)) visit({ $ref: target });
      } else visit(value);
    }
  };
  visit(document.paths);
  for (const [, , op] of operations(document)) for (const requirement of op.security ?? []) for (const name of Object.keys(requirement)) used.add(`#/components/securitySchemes/${name}`);
  for (const [section, entries] of Object.entries(components)) {
    for (const name of Object.keys(entries ?? {})) if (!used.has(`#/components/${section}/${name}`)) delete entries[name];
  }
}
