import { z } from 'zod';
import type { Actor } from '../src/auth/actor';
import { notFound } from '../src/errors';
import { SESSION_ID_PATTERN } from '../src/ids';
import { encodeCursor } from '../src/sessions/session.service';
import { SESSION_STATUSES } from '../src/sessions/session-status';
import { TIERS } from '../src/sessions/tiers';
import { createSessionInput } from './create-session.request';
import { presentDecision } from './decision.presenter';
import { defineRoute, tenantKeyOf, type RouteRecord } from './route-record';
import { presentSession, type SessionBodyExtras } from './session.presenter';
import type { V1Services } from './v1-services';

const key = (scope: 'sessions:read' | 'sessions:write' | 'sessions:review', owns: 'session' | null = null) => ({ kind: 'tenant_key' as const, scope, owns });
const tier = z.enum(TIERS);
const TAGS = ['sessions'] as const;

/** Ids outside the documented pattern cannot name a session: 404, like any unknown id. */
export function sessionIdParam(id: string | string[] | undefined): string {
  if (typeof id !== 'string' || !SESSION_ID_PATTERN.test(id)) throw notFound();
  return id;
}

/** A read's extras: evidence links and the open session's hosted URL, which the services give to tenant keys only. */
const readExtras = (services: V1Services, actor: Actor, s: { id: string; status: string }): SessionBodyExtras => ({
  evidenceUrls: services.evidence.signerFor(actor),
  hostedUrl: services.hostedLink.forRead(actor, s),
});

const createBody = z
  .object({
    flow_id: z.string().optional(),
    tier: tier.optional(),
    tiers: z.array(tier).min(1).optional().meta({ description: 'The quickstart shape: its highest tier is the tier.' }),
    reference_id: z.string().nullish(),
    reference: z.string().nullish().meta({ description: 'The quickstart shape: reference_id.' }),
    redirect_url: z.string().nullish(),
    locale: z.string().nullish(),
    metadata: z.record(z.string(), z.unknown()).nullish(),
    user_sub: z.string().nullish(),
  })
  .strict()
  .meta({ id: 'CreateSessionRequest', description: 'Either the definition shape (flow_id and tier required) or the quickstart shape (tiers).' });

const listQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).optional().meta({ description: 'Sessions per page (default 20).' }),
    after: z.string().optional().meta({ description: 'The `next_cursor` of the previous page.' }),
    status: z.enum(SESSION_STATUSES).optional(),
    reference_id: z.string().optional(),
  })
  .strict();

const reviewBody = z.object({ decision: z.enum(['approve', 'reject']), reason: z.string(), reviewer_id: z.string().nullish() }).strict().meta({ id: 'ManualReviewRequest' });
const decideBody = z
  .object({ decision: z.enum(['approve', 'decline', 'reverse']), reason: z.string(), reviewer_id: z.string().nullish(), reverses: z.string().nullish() })
  .strict()
  .meta({ id: 'DecisionRequest' });

const session = { component: 'Session' };

/** /v1/verify sessions and their decisions (D3, D6, D13, D16): each record validates, calls one SessionService use case, presents the definition shape. */
export const SESSION_ROUTES: readonly RouteRecord[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/verify/sessions',
    guard: key('sessions:write'),
    bucket: 'verify_create',
    body: createBody,
    responses: { 201: { description: 'Created; the answer alone carries the client_secret', schema: { component: 'CreatedSession' } } },
    errors: ['BadRequest', 'UnsupportedMediaType', 'PayloadTooLarge'],
    doc: { operationId: 'createSession', tags: TAGS, summary: 'Create a verification session' },
    handler: async ({ body, ctx, services }) => {
      const input = createSessionInput(body);
      const { session: s, clientSecret } = await services.sessions.create(tenantKeyOf(ctx), input);
      return { status: 201, body: presentSession(s, { hostedUrl: services.hostedLink.forCreated(s.id), clientSecret }) };
    },
  }),
  // The tenant's sessions in the key's mode, newest first, paged by the cursor of the last one.
  defineRoute({
    method: 'GET',
    path: '/v1/verify/sessions',
    guard: key('sessions:read'),
    bucket: 'verify_read',
    query: listQuery,
    responses: { 200: { description: 'A page of sessions, newest first', schema: { component: 'SessionList' } } },
    errors: ['BadRequest'],
    doc: { operationId: 'listSessions', tags: TAGS, summary: 'List sessions' },
    handler: async ({ query: q, ctx, services }) => {
      const query = { first: q.limit ?? 20, after: q.after ?? null, status: q.status ?? null, referenceId: q.reference_id ?? null };
      const actor = tenantKeyOf(ctx);
      const page = await services.sessions.list(actor, query);
      const last = page.sessions.at(-1);
      const data = page.sessions.map((s) => presentSession(s, readExtras(services, actor, s)));
      return { status: 200, body: { object: 'list', data, has_more: page.hasNextPage, next_cursor: page.hasNextPage && last ? encodeCursor(last) : null } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/verify/sessions/:id/cancel',
    guard: key('sessions:write', 'session'),
    bucket: 'default',
    params: { id: { component: 'SessionId' } },
    responses: { 200: { description: 'The cancelled session', schema: session } },
    errors: ['NotFound', 'Conflict'],
    doc: { operationId: 'cancelSession', tags: TAGS, summary: 'Cancel a session' },
    handler: async ({ req, ctx, services }) => {
      const actor = tenantKeyOf(ctx);
      const s = await services.sessions.cancel(actor, sessionIdParam(req.params.id));
      return { status: 200, body: presentSession(s, readExtras(services, actor, s)) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/verify/sessions/:id',
    guard: { kind: 'tenant_key_or_client_secret', scope: 'sessions:read', owns: 'session' },
    bucket: 'verify_read',
    params: { id: { component: 'SessionId' } },
    responses: { 200: { description: 'The session', schema: session } },
    errors: ['NotFound'],
    doc: { operationId: 'getSession', tags: TAGS, summary: 'Read a session' },
    handler: async ({ req, ctx, services }) => {
      const s = await services.sessions.find(ctx.actor, sessionIdParam(req.params.id));
      if (!s) throw notFound();
      return { status: 200, body: presentSession(s, readExtras(services, ctx.actor, s)) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/verify/manual-review/:id',
    guard: key('sessions:review', 'session'),
    bucket: 'default',
    params: { id: { component: 'SessionId' } },
    body: reviewBody,
    responses: { 200: { description: 'The decided session', schema: session } },
    errors: ['BadRequest', 'NotFound', 'Conflict', 'UnsupportedMediaType'],
    doc: { operationId: 'reviewSession', tags: TAGS, summary: 'Approve or reject a session in manual_review' },
    handler: async ({ req, body, ctx, services }) => {
      const id = sessionIdParam(req.params.id);
      const input = { decision: body.decision, reason: body.reason, reviewerId: body.reviewer_id ?? undefined };
      const actor = tenantKeyOf(ctx);
      const s = await services.sessions.review(actor, id, input);
      return { status: 200, body: presentSession(s, readExtras(services, actor, s)) };
    },
  }),
  // A session's decision history (docs/decisions.md D16), and a person's decision on it.
  defineRoute({
    method: 'GET',
    path: '/v1/verify/sessions/:id/decisions',
    guard: key('sessions:read', 'session'),
    bucket: 'verify_read',
    params: { id: { component: 'SessionId' } },
    responses: { 200: { description: 'The decision history, oldest first', schema: { listOf: 'SessionDecision' } } },
    errors: ['NotFound'],
    doc: { operationId: 'listSessionDecisions', tags: TAGS, summary: "A session's decision history" },
    handler: async ({ req, ctx, services }) => {
      const s = await services.sessions.find(ctx.actor, sessionIdParam(req.params.id));
      if (!s) throw notFound();
      return { status: 200, body: { object: 'list', data: (await services.decisions.of(s.id)).map(presentDecision) } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/verify/sessions/:id/decisions',
    guard: key('sessions:review', 'session'),
    bucket: 'verify_admin',
    params: { id: { component: 'SessionId' } },
    body: decideBody,
    responses: { 201: { description: 'The decision', schema: { component: 'SessionDecision' } } },
    errors: ['BadRequest', 'NotFound', 'Conflict', 'UnsupportedMediaType'],
    doc: { operationId: 'decideSession', tags: TAGS, summary: 'Decide a session (approve, decline, reverse)' },
    handler: async ({ req, body, ctx, services }) => {
      const input = { decision: body.decision, reason: body.reason, reviewerId: body.reviewer_id, reverses: body.reverses };
      const { decision } = await services.sessions.decide(tenantKeyOf(ctx), sessionIdParam(req.params.id), input);
      // A tenant key's decline is never held (the second-reviewer rule refuses it instead): a decision was made.
      if (!decision) throw new Error('A tenant key decision was held for a second reviewer');
      return { status: 201, body: presentDecision(decision) };
    },
  }),
];
