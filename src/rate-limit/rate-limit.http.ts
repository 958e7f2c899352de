import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import { DocumentNode, Kind, OperationDefinitionNode, parse, SelectionSetNode } from 'graphql';
import type { RequestContext } from '../context';
import { DomainError } from '../errors';
import { sendError } from '../http/error-response';
import { BucketName, BUCKETS, bucketForRequest, bucketsForGraphQL, WINDOW_SECONDS } from './buckets';
import { Decision, RateLimitService, Subject, subjectOf } from './rate-limit.service';

export type MeterDeps = {
  limits: RateLimitService;
  /** Authenticates the request; throws `unauthorized` for a wrong credential, null actor for none. */
  contextFor(req: Request): Promise<RequestContext>;
  publicBaseUrl: string;
};

export function setRateLimitHeaders(res: Response, d: Decision): void {
  res.setHeader('ratelimit-limit', String(d.limit));
  res.setHeader('ratelimit-remaining', String(d.remaining));
  res.setHeader('ratelimit-reset', String(d.resetSeconds));
}

/** The 429 problem document (spec "Problem body"); `retry-after` is the authoritative wait. */
export function sendRateLimited(res: Response, d: Decision, publicBaseUrl: string): void {
  setRateLimitHeaders(res, d);
  res.setHeader('retry-after', String(d.resetSeconds));
  if (d.testMode) {
    res.setHeader('service-debug-bucket-state', `bucket=${d.bucket}, limit=${d.limit}, used=${d.used}, window_s=${WINDOW_SECONDS}, reset_s=${d.resetSeconds}`);
  }
  res
    .status(429)
    .type('application/problem+json')
    .send(
      JSON.stringify({
        type: `${publicBaseUrl}/errors/rate_limited`,
        title: 'Rate limit exceeded',
        status: 429,
        detail: `The ${d.bucket} bucket allows ${d.limit} requests per sliding ${WINDOW_SECONDS} s window. Retry after ${d.resetSeconds} s.`,
        bucket: d.bucket,
        retry_after: d.resetSeconds,
      }),
    );
}

/** The client's address: the socket's, or with TRUST_PROXY express's reading of X-Forwarded-For. Read only when counted. */
const clientIp = (req: Request): string => req.ip ?? req.socket.remoteAddress ?? 'unknown';

type Metered =
  | { ok: true; decision: Decision; context: RequestContext | null; authError: DomainError | null }
  | { ok: false };

/**
 * Charges the request's buckets to the authenticated key, or, for a missing or wrong credential,
 * to the client IP. While an IP is over a bucket's limit every request from it to that bucket is
 * refused before its credential is believed: otherwise a 200 among 429s would tell a key guesser
 * which guess was right. That check reads the store only for IPs this instance has refused, so an
 * ordinary request pays nothing for it. A wrong credential comes back as `authError` for the
 * surface to answer in its own shape, after the charge.
 */
async function meterAuthenticated(deps: MeterDeps, req: Request, res: Response, buckets: readonly BucketName[]): Promise<Metered> {
  let context: RequestContext | null = null;
  let authError: DomainError | null = null;
  try {
    context = await deps.contextFor(req);
  } catch (err) {
    if (!(err instanceof DomainError && err.code === 'unauthorized')) throw err;
    authError = err;
  }
  if (req.headers.authorization !== undefined && deps.limits.remembersBlockedIps()) {
    const ip = clientIp(req);
    for (const bucket of buckets) {
      const blocked = await deps.limits.peekIp(bucket, ip);
      if (blocked) {
        sendRateLimited(res, blocked, deps.publicBaseUrl);
        return { ok: false };
      }
    }
  }
  const actor = context?.actor ?? null;
  const charged = deps.limits.chargeAll(buckets, actor ? subjectOf(actor) : { kind: 'ip', ip: clientIp(req) });
  const decision = charged instanceof Promise ? await charged : charged;
  if (!decision.allowed) {
    sendRateLimited(res, decision, deps.publicBaseUrl);
    return { ok: false };
  }
  setRateLimitHeaders(res, decision);
  return { ok: true, decision, context, authError };
}

const parseForm = express.urlencoded({ extended: false, limit: 64 * 1024 });

/** The OAuth client of a token/userinfo request: HTTP Basic user, else the form's `client_id`. */
async function oauthClientId(req: Request, res: Response): Promise<string | null> {
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(req.header('authorization') ?? '');
  if (basic) {
    const user = Buffer.from(basic[1], 'base64').toString('utf8').split(':')[0];
    try {
      if (user) return decodeURIComponent(user.replace(/\+/g, ' '));
    } catch {
      return null;
    }
  }
  if (req.is('application/x-www-form-urlencoded')) {
    // Parsed here so the client is known before anything else runs; the token endpoint reads the
    // already-parsed `req.body` (oidc-provider accepts a pre-parsed body).
    await new Promise<void>((resolve, reject) => parseForm(req, res, (err?: unknown) => (err ? reject(err) : resolve())));
    const id = (req.body as Record<string, unknown> | undefined)?.client_id;
    if (typeof id === 'string' && id.length > 0 && id.length <= 200) return id;
  }
  return null;
}

/**
 * /v1 metering and authentication in one middleware, mounted before the routes: every /v1 request
 * is charged to its bucket, including paths no route serves yet (they then 404 with headers), so
 * the table holds from day one. A wrong credential is answered 401 after its IP was charged; on
 * success the authenticated context is left in `res.locals.context` for the routes.
 */
export function meterV1(deps: MeterDeps): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const bucket = bucketForRequest(req.method, `${req.baseUrl}${req.path}`);
      if (BUCKETS[bucket].per === 'client') {
        const clientId = await oauthClientId(req, res);
        const subject: Subject = clientId ? { kind: 'client', id: clientId } : { kind: 'ip', ip: clientIp(req) };
        const d = await deps.limits.charge(bucket, subject);
        if (!d.allowed) return sendRateLimited(res, d, deps.publicBaseUrl);
        setRateLimitHeaders(res, d);
        res.locals.context = await deps.contextFor(req);
        return next();
      }
      const metered = await meterAuthenticated(deps, req, res, [bucket]);
      if (!metered.ok) return;
      if (metered.authError) return sendError(res, metered.authError.code, metered.authError.message);
      res.locals.context = metered.context;
      next();
    } catch (err) {
      if (err instanceof DomainError) return sendError(res, err.code, err.message);
      next(err);
    }
  };
}

/** The root fields of the operation a request would run, or null when it cannot be told (Apollo then answers 400). */
export function rootFieldsOf(query: unknown, operationName: unknown): { operation: OperationDefinitionNode['operation']; fields: string[] } | null {
  if (typeof query !== 'string') return null;
  let doc: DocumentNode;
  try {
    doc = parse(query, { maxTokens: 5000 });
  } catch {
    return null;
  }
  const ops = doc.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const op = typeof operationName === 'string' && operationName ? ops.find((o) => o.name?.value === operationName) : ops.length === 1 ? ops[0] : undefined;
  if (!op) return null;
  const fragments = new Map(doc.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d.selectionSet] as const] : [])));
  const fields = new Set<string>();
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode): void => {
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) {
        if (!s.name.value.startsWith('__')) fields.add(s.name.value);
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        walk(s.selectionSet);
      } else if (!seen.has(s.name.value)) {
        seen.add(s.name.value);
        const f = fragments.get(s.name.value);
        if (f) walk(f);
      }
    }
  };
  walk(op.selectionSet);
  return { operation: op.operation, fields: [...fields] };
}

/**
 * GraphQL metering (docs/rate-limits.md), mounted after the JSON body parser and before Apollo: an operation is
 * charged one unit in each bucket its root fields map to, and a refusal is the same HTTP 429
 * problem document as on REST. Requests whose operation cannot be read are charged to `default`.
 */
export function meterGraphQL(deps: MeterDeps): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const params = (req.method === 'GET' ? req.query : req.body) as Record<string, unknown> | undefined;
      const op = rootFieldsOf(params?.query, params?.operationName);
      const buckets = op ? bucketsForGraphQL(op.operation, op.fields) : (['default'] as BucketName[]);
      const metered = await meterAuthenticated(deps, req, res, buckets);
      if (!metered.ok) return;
      // A wrong credential is left for Apollo's context function to refuse in GraphQL's shape.
      if (metered.context) res.locals.context = metered.context;
      next();
    } catch (err) {
      next(err);
    }
  };
}
