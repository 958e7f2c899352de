import { Router } from 'express';
import { DomainError, notFound } from '../src/errors';
import { SESSION_ID_PATTERN } from '../src/ids';
import { jsonBody } from '../http/json-body';
import { createSessionInput } from './create-session.request';
import { RestOperations } from './operations';
import { presentSession } from './session.presenter';
import { presentDecision } from './decision.presenter';
import { rejectUnknownFields, requireObject, requiredString, optionalString } from './request-validation';
import { restRoute } from './rest-route';

/** /v1/verify sessions: each route validates its body, runs its GraphQL operation, and presents the definition shape. */
export function sessionsRouter(ops: RestOperations, router: Router = Router()): Router {
  router.post(
    '/verify/sessions',
    jsonBody,
    restRoute(async (req, ctx) => {
      const created = await ops.run('createSession', { input: createSessionInput(req.body) }, ctx);
      return { status: 201, body: presentSession(created) };
    }),
  );

  // The tenant's sessions in the key's mode, newest first (the GraphQL `sessions` connection, paged by its cursor).
  router.get(
    '/verify/sessions',
    restRoute(async (req, ctx) => {
      const query = listQuery(req.query);
      const page = await ops.run('sessions', query, ctx);
      return {
        status: 200,
        body: { object: 'list', data: page.edges.map((e) => presentSession(e.node)), has_more: page.pageInfo.hasNextPage, next_cursor: page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null },
      };
    }),
  );

  router.post(
    '/verify/sessions/:id/cancel',
    restRoute(async (req, ctx) => {
      const id = sessionIdParam(req.params.id);
      const session = await ops.run('cancelSession', { id }, ctx);
      return { status: 200, body: presentSession(session) };
    }),
  );

  router.get(
    '/verify/sessions/:id',
    restRoute(async (req, ctx) => {
      const id = sessionIdParam(req.params.id);
      const session = await ops.run('session', { id }, ctx);
      if (!session) throw notFound();
      return { status: 200, body: presentSession(session) };
    }),
  );

  router.post(
    '/verify/manual-review/:id',
    jsonBody,
    restRoute(async (req, ctx) => {
      const id = sessionIdParam(req.params.id);
      const body = requireObject(req.body);
      rejectUnknownFields(body, ['decision', 'reason', 'reviewer_id']);
      const decision = requiredString(body, 'decision');
      if (decision !== 'approve' && decision !== 'reject') throw new DomainError('invalid_request', 'decision must be approve or reject');
      const input = { decision: decision.toUpperCase(), reason: requiredString(body, 'reason'), reviewerId: optionalString(body, 'reviewer_id') };
      const session = await ops.run('reviewSession', { id, input }, ctx);
      return { status: 200, body: presentSession(session) };
    }),
  );

  // A session's decision history (DECISIONS.md D16), and a person's decision on it.
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
      const body = requireObject(req.body);
      rejectUnknownFields(body, ['decision', 'reason', 'reviewer_id', 'reverses']);
      const decision = requiredString(body, 'decision');
      if (!['approve', 'decline', 'reverse'].includes(decision)) throw new DomainError('invalid_request', 'decision must be approve, decline or reverse');
      const input = { decision: decision.toUpperCase(), reason: requiredString(body, 'reason'), reviewerId: optionalString(body, 'reviewer_id'), reverses: optionalString(body, 'reverses') };
      const decided = await ops.run('decideSession', { id, input }, ctx);
      return { status: 201, body: presentDecision(decided.decision) };
    }),
  );

  return router;
}

const SESSION_STATUSES = ['created', 'in_progress', 'processing', 'success', 'failed', 'manual_review', 'expired', 'withdrawn'];

/** `?limit=&after=&status=&reference_id=` as the `sessions` query's variables; anything else is a 400 naming it. */
function listQuery(query: unknown): { first: number; after: string | null; status: string | null; referenceId: string | null } {
  const q = requireObject(query, 'The query string');
  rejectUnknownFields(q, ['limit', 'after', 'status', 'reference_id']);
  const limit = optionalString(q, 'limit');
  if (limit !== undefined && !/^(?:[1-9]\d?|100)$/.test(limit)) throw new DomainError('invalid_request', 'limit must be an integer from 1 to 100');
  const status = optionalString(q, 'status');
  if (status !== undefined && !SESSION_STATUSES.includes(status)) throw new DomainError('invalid_request', `status must be one of ${SESSION_STATUSES.join(', ')}`);
  return { first: limit === undefined ? 20 : Number(limit), after: optionalString(q, 'after') ?? null, status: status?.toUpperCase() ?? null, referenceId: optionalString(q, 'reference_id') ?? null };
}

/** Ids outside the documented pattern cannot name a session: 404, like any unknown id. */
export function sessionIdParam(id: string | string[] | undefined): string {
  if (typeof id !== 'string' || !SESSION_ID_PATTERN.test(id)) throw notFound();
  return id;
}
