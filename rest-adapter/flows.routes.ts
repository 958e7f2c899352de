import { z } from 'zod';
import type { FlowEntity } from '../entities/flow.entity';
import { DomainError } from '../src/errors';
import type { FlowEditor, UpdateFlowCommand } from '../src/flows/flow.service';
import type { TenantKeyActor } from '../src/auth/actor';
import { defineRoute, tenantKeyOf, type RouteRecord } from './route-record';

const MANAGE = { kind: 'tenant_key' as const, scope: 'flows:manage' as const, owns: null };
const TAGS = ['flows'] as const;

const present = (f: FlowEntity) => ({
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
  allowed_origins: f.allowedOrigins ?? [],
  digital_id: f.digitalIdEnabled,
  created_at: f.createdAt.toISOString(),
});

// The JSON types of a flow's fields; the values themselves FlowService judges, for the console too.
const flowFields = z
  .object({
    name: z.string().optional(),
    max_tier: z.string().optional(),
    display_name: z.string().optional(),
    logo_url: z.string().nullish().meta({ description: 'https URL of the logo; null removes it' }),
    primary_color: z.string().optional(),
    locale: z.string().optional(),
    redirect_url: z.string().nullish().meta({ description: 'http(s) URL the page returns to; null removes it' }),
    allowed_origins: z.array(z.string()).optional(),
    digital_id: z.boolean().optional().meta({ description: 'Whether the hosted page offers "Use a digital ID"; false hides it and refuses the page\'s digital-ID requests.' }),
  })
  .strict()
  .meta({ id: 'FlowPatch' });
type FlowFields = z.infer<typeof flowFields>;

/** A body as FlowService's command: only the fields given, null kept where it clears (the logo, the redirect). */
function command(body: FlowFields): UpdateFlowCommand {
  const cmd: UpdateFlowCommand = {
    name: body.name,
    maxTier: body.max_tier,
    displayName: body.display_name,
    logoUrl: body.logo_url,
    primaryColor: body.primary_color,
    locale: body.locale,
    redirectUrl: body.redirect_url,
    allowedOrigins: body.allowed_origins,
    digitalIdEnabled: body.digital_id,
  };
  return Object.fromEntries(Object.entries(cmd).filter(([, v]) => v !== undefined)) as UpdateFlowCommand;
}
const editor = (actor: TenantKeyActor): FlowEditor => ({ livemode: actor.livemode, who: { key_id: actor.keyId } });
const flowId = (id: string | string[] | undefined) => String(id);

/** The tenant's flows (D2), what the console's Flows section manages: each record calls one FlowService use case. */
export const FLOW_ROUTES: readonly RouteRecord[] = [
  defineRoute({
    method: 'GET',
    path: '/v1/developer/flows',
    guard: MANAGE,
    bucket: 'default',
    responses: { 200: { description: "The tenant's flows, the default first", schema: { listOf: 'Flow' } } },
    doc: { operationId: 'listFlows', tags: TAGS, summary: 'List flows' },
    handler: async ({ ctx, services }) => ({ status: 200, body: { object: 'list', data: (await services.flows.list(tenantKeyOf(ctx).tenantId)).map(present) } }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/developer/flows',
    guard: MANAGE,
    bucket: 'default',
    body: flowFields,
    responses: { 201: { description: 'The new flow', schema: { component: 'Flow' } } },
    errors: ['BadRequest', 'UnsupportedMediaType'],
    doc: { operationId: 'createFlow', tags: TAGS, summary: 'Create a flow' },
    handler: async ({ body, ctx, services }) => {
      const { name, ...rest } = command(body);
      if (name === undefined) throw new DomainError('invalid_request', 'name is required');
      const actor = tenantKeyOf(ctx);
      return { status: 201, body: present(await services.flows.create(actor.tenantId, { ...rest, name }, editor(actor))) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/developer/flows/:id',
    guard: { ...MANAGE, owns: 'flow' },
    bucket: 'default',
    responses: { 200: { description: 'The flow', schema: { component: 'Flow' } } },
    errors: ['NotFound'],
    doc: { operationId: 'getFlow', tags: TAGS, summary: 'Read a flow ("default" names the default flow)' },
    handler: async ({ req, ctx, services }) => ({ status: 200, body: present(await services.flows.get(tenantKeyOf(ctx).tenantId, flowId(req.params.id))) }),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/v1/developer/flows/:id',
    guard: { ...MANAGE, owns: 'flow' },
    bucket: 'default',
    body: flowFields,
    responses: { 200: { description: 'The flow as changed', schema: { component: 'Flow' } } },
    errors: ['BadRequest', 'NotFound', 'UnsupportedMediaType'],
    doc: { operationId: 'updateFlow', tags: TAGS, summary: 'Change a flow' },
    handler: async ({ req, body, ctx, services }) => {
      const cmd = command(body);
      if (Object.keys(cmd).length === 0) throw new DomainError('invalid_request', `Give at least one of ${Object.keys(flowFields.shape).join(', ')}`);
      const actor = tenantKeyOf(ctx);
      return { status: 200, body: present(await services.flows.update(actor.tenantId, flowId(req.params.id), cmd, editor(actor))) };
    },
  }),
];
