import { Router } from 'express';
import { requireTenantKey } from '../src/auth/auth.service';
import type { Actor } from '../src/auth/actor';
import { DomainError, notFound } from '../src/errors';
import { SESSION_ID_PATTERN } from '../src/ids';
import type { HostedLink } from '../src/hosted-flow/hosted-link';
import { encodeCursor, type ListSessionsQuery, type SessionService } from '../src/sessions/session.service';
import { SESSION_STATUSES, type SessionStatus } from '../src/sessions/session-status';
import { assertAcceptableInput } from '../src/validation/input-limits';
import type { EvidenceAccessService } from '../src/vault/evidence-access.service';
import { jsonBody } from '../http/json-body';
import { createSessionInput } from './create-session.request';
import { RestOperations } from './operations';
import { presentSession, type SessionBodyExtras } from './session.presenter';
import { presentDecision } from './decision.presenter';
import { objectWithFields, optionalString, requiredString } from './request-validation';
import { restRoute } from './rest-route';

export type SessionsRouterDeps = {
  sessions: SessionService;
  /** The hosted page's link: in the create answer, and in a tenant key's reads while the session is open (D21). */
  hostedLink: HostedLink;
  evidence: Pick<EvidenceAccessService, 'urlsFor'>;
  /** The decision routes still run their GraphQL operations. */
  ops: RestOperations;
};

/**
 * /v1/verify sessions: each route validates its input, calls its one SessionService use case and
 * presents the definition shape. The policy gate (http/policy-gate.middleware.ts) has already
 * refused a credential without the route's kind or scope, so a handler only narrows the actor's type.
 * Arguments a session id does not cover meet the input limits as GraphQL's root fields do
 * (schema/build-schema.ts), named as that field's arguments, so both surfaces refuse a bad value alike.
 */
export function sessionsRouter({ sessions, hostedLink, evidence, ops }: SessionsRouterDeps, router: Router = Router()): Router {
  // Evidence links and the open session's hosted URL go to tenant keys only, never to a browser's client_secret.
  const evidenceUrls = (ids: readonly string[] | undefined) => evidence.urlsFor(ids);
  const readExtras = (actor: Actor, s: { id: string; status: string }): SessionBodyExtras =>
    actor.kind === 'tenant_key' ? { evidenceUrls, hostedUrl: hostedLink.forRead(actor, s) } : {};

  router.post(
    '/verify/sessions',
    jsonBody,
    restRoute(async (req, ctx) => {
      const input = createSessionInput(req.body);
      assertAcceptableInput({ input });
      const actor = requireTenantKey(ctx.actor, 'sessions:write');
      const { session, clientSecret } = await sessions.create(actor, input);
      return { status: 201, body: presentSession(session, { hostedUrl: hostedLink.forCreated(session.id), clientSecret }) };
    }),
  );

  // The tenant's sessions in the key's mode, newest first, paged by the cursor of the last one.
  router.get(
    '/verify/sessions',
    restRoute(async (req, ctx) => {
      const query = listQuery(req.query);
      assertAcceptableInput(query);
      const actor = requireTenantKey(ctx.actor, 'sessions:read');
      const page = await sessions.list(actor, query);
      const last = page.sessions.at(-1);
      return {
        status: 200,
        body: { object: 'list', data: page.sessions.map((s) => presentSession(s, readExtras(actor, s))), has_more: page.hasNextPage, next_cursor: page.hasNextPage && last ? encodeCursor(last) : null },
      };
    }),
  );

  router.post(
    '/verify/sessions/:id/cancel',
    restRoute(async (req, ctx) => {
      const id = sessionIdParam(req.params.id);
      const actor = requireTenantKey(ctx.actor, 'sessions:write');
      const session = await sessions.cancel(actor, id);
      return { status: 200, body: presentSession(session, readExtras(actor, session)) };
    }),
  );

  router.get(
    '/verify/sessions/:id',
    restRoute(async (req, ctx) => {
      const session = await sessions.find(ctx.actor, sessionIdParam(req.params.id));
      if (!session) throw notFound();
      return { status: 200, body: presentSession(session, readExtras(ctx.actor, session)) };
    }),
  );

  router.post(
    '/verify/manual-review/:id',
    jsonBody,
    restRoute(async (req, ctx) => {
      const id = sessionIdParam(req.params.id);
      const body = objectWithFields(req.body, ['decision', 'reason', 'reviewer_id']);
      const decision = requiredString(body, 'decision');
      if (!isReviewDecision(decision)) throw new DomainError('invalid_request', 'decision must be approve or reject');
      const input = { decision, reason: requiredString(body, 'reason'), reviewerId: optionalString(body, 'reviewer_id') };
      assertAcceptableInput({ id, input });
      const actor = requireTenantKey(ctx.actor, 'sessions:review');
      const session = await sessions.review(actor, id, input);
      return { status: 200, body: presentSession(session, readExtras(actor, session)) };
    }),
  );

  // A session's decision history (docs/decisions.md D16), and a person's decision on it.
  router.get(
    '/verify/sessions/:id/decisions',
    restRoute(async (req, ctx) => {
      const id = sessionIdParam(req.params.id);
      const session = await ops.run('sessionDecisions', { id }, ctx);
      if (!session) throw notFound();
      // The policy gate lets only a tenant key with sessions:read here, for which the history is never null.
      return { status: 200, body: { object: 'list', data: (session.decisions ?? []).map(presentDecision) } };
    }),
  );

  router.post(
    '/verify/sessions/:id/decisions',
    jsonBody,
    restRoute(async (req, ctx) => {
      const id = sessionIdParam(req.params.id);
      const body = objectWithFields(req.body, ['decision', 'reason', 'reviewer_id', 'reverses']);
      const decision = requiredString(body, 'decision');
      if (!['approve', 'decline', 'reverse'].includes(decision)) throw new DomainError('invalid_request', 'decision must be approve, decline or reverse');
      const input = { decision: decision.toUpperCase(), reason: requiredString(body, 'reason'), reviewerId: optionalString(body, 'reviewer_id'), reverses: optionalString(body, 'reverses') };
      const decided = await ops.run('decideSession', { id, input }, ctx);
      return { status: 201, body: presentDecision(decided.decision) };
    }),
  );

  return router;
}

const isReviewDecision = (d: string): d is 'approve' | 'reject' => d === 'approve' || d === 'reject';
const isSessionStatus = (s: string): s is SessionStatus => (SESSION_STATUSES as readonly string[]).includes(s);

/** `?limit=&after=&status=&reference_id=` as SessionService's list query; anything else is a 400 naming it. */
function listQuery(query: unknown): ListSessionsQuery {
  const q = objectWithFields(query, ['limit', 'after', 'status', 'reference_id'], 'The query string');
  const limit = optionalString(q, 'limit');
  if (limit !== undefined && !/^(?:[1-9]\d?|100)$/.test(limit)) throw new DomainError('invalid_request', 'limit must be an integer from 1 to 100');
  const status = optionalString(q, 'status');
  if (status !== undefined && !isSessionStatus(status)) throw new DomainError('invalid_request', `status must be one of ${SESSION_STATUSES.join(', ')}`);
  return { first: limit === undefined ? 20 : Number(limit), after: optionalString(q, 'after') ?? null, status: status ?? null, referenceId: optionalString(q, 'reference_id') ?? null };
}

/** Ids outside the documented pattern cannot name a session: 404, like any unknown id. */
export function sessionIdParam(id: string | string[] | undefined): string {
  if (typeof id !== 'string' || !SESSION_ID_PATTERN.test(id)) throw notFound();
  return id;
}
