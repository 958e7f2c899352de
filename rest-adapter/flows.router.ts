import { Router } from 'express';
import { jsonBody } from '../http/json-body';
import { DomainError } from '../src/errors';
import { assertAcceptableInput } from '../src/validation/input-limits';
import { RestOperations, type FlowData } from './operations';
import { JsonObject, objectWithFields } from './request-validation';
import { restRoute } from './rest-route';

const invalid = (message: string) => new DomainError('invalid_request', message);

/** The body's fields and their GraphQL input names; `nullable`: null clears it (the logo and the redirect). */
const FIELDS = {
  name: { input: 'name', nullable: false },
  max_tier: { input: 'maxTier', nullable: false },
  display_name: { input: 'displayName', nullable: false },
  logo_url: { input: 'logoUrl', nullable: true },
  primary_color: { input: 'primaryColor', nullable: false },
  locale: { input: 'locale', nullable: false },
  redirect_url: { input: 'redirectUrl', nullable: true },
  allowed_origins: { input: 'allowedOrigins', nullable: false },
  digital_id: { input: 'digitalIdEnabled', nullable: false },
} as const;

const present = (f: FlowData) => ({
  id: f.id,
  object: 'flow',
  name: f.name,
  is_default: f.isDefault,
  max_tier: f.maxTier,
  display_name: f.displayName,
  logo_url: f.logoUrl,
  primary_color: f.primaryColor,
  locale: f.locale,
  redirect_url: f.redirectUrl,
  allowed_origins: f.allowedOrigins,
  digital_id: f.digitalIdEnabled,
  created_at: f.createdAt,
});

/**
 * A body's fields as the GraphQL input, each of its JSON type (so a number is named in REST terms,
 * not as a GraphQL variable); the values themselves FlowService judges, for the console too.
 */
function flowInput(body: JsonObject): Record<string, unknown> {
  assertAcceptableInput(body); // the limits of every argument, named as the body names them
  const input: Record<string, unknown> = {};
  for (const [field, { input: name, nullable }] of Object.entries(FIELDS)) {
    const v = body[field];
    if (v === undefined) continue;
    if (v === null && nullable) input[name] = null;
    else if (field === 'allowed_origins') {
      if (!Array.isArray(v) || v.some((o) => typeof o !== 'string')) throw invalid('allowed_origins must be an array of origins such as https://shop.example');
      input[name] = v;
    } else if (field === 'digital_id') {
      if (typeof v !== 'boolean') throw invalid('digital_id must be true or false');
      input[name] = v;
    } else if (typeof v !== 'string') throw invalid(`${field} must be a string`);
    else input[name] = v;
  }
  return input;
}

/**
 * The tenant's flows (D2), what the console's Flows section manages: validate the body's shape, run
 * the GraphQL operation (FlowService behind it, as behind the console), present snake_case.
 */
export function flowsRouter(ops: RestOperations, router: Router = Router()): Router {
  router.get(
    '/developer/flows',
    restRoute(async (_req, ctx) => ({ status: 200, body: { object: 'list', data: (await ops.run('flows', {}, ctx)).map(present) } })),
  );

  router.post(
    '/developer/flows',
    jsonBody,
    restRoute(async (req, ctx) => {
      const input = flowInput(objectWithFields(req.body, Object.keys(FIELDS)));
      if (input.name === undefined) throw invalid('name is required');
      return { status: 201, body: present(await ops.run('createFlow', { input }, ctx)) };
    }),
  );

  router.get(
    '/developer/flows/:id',
    restRoute(async (req, ctx) => ({ status: 200, body: present(await ops.run('flow', { flowId: req.params.id }, ctx)) })),
  );

  router.patch(
    '/developer/flows/:id',
    jsonBody,
    restRoute(async (req, ctx) => {
      const input = flowInput(objectWithFields(req.body, Object.keys(FIELDS)));
      if (Object.keys(input).length === 0) throw invalid(`Give at least one of ${Object.keys(FIELDS).join(', ')}`);
      return { status: 200, body: present(await ops.run('updateFlow', { flowId: req.params.id, input }, ctx)) };
    }),
  );

  return router;
}
