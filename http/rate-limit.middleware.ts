import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import { DocumentNode, Kind, OperationDefinitionNode, parse, SelectionSetNode } from 'graphql';
import { DomainError } from '../src/errors';
import { answerDomainError } from './error-response';
import { BucketName, BUCKETS, bucketForRequest, bucketsForGraphQL, WINDOW_SECONDS } from '../src/rate-limit/buckets';
import { Decision, RateLimitService, Subject, subjectOf } from '../src/rate-limit/rate-limit.service';

/** Metering runs after `authenticate` (authenticate.middleware.ts) and charges the actor it found. */
export type MeterDeps = {
  limits: RateLimitService;
  publicBaseUrl: string;
  /** The OAuth client an opaque access token was issued to (userinfo carries no client_id); docs/accounts-and-oidc.md. */
  clientOfAccessToken?: (token: string) => Promise<string | null>;
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


/**
 * Charges the request's buckets to the authenticated key, or, for a missing or wrong credential,
 * to the client IP. The per-IP count throttles bad credentials only: a valid key is charged to
 * itself and never refused because of what others sent from its address (behind a proxy without
 * TRUST_PROXY every tenant shares one address). Keys are 40 random base62 characters, so the odd
 * success among a guesser's 429s tells them nothing they could have found. A wrong credential is
 * left for the surface to answer in its own shape, after the charge. False when the request was
 * refused (the 429 is sent).
 */
async function meterAuthenticated(deps: MeterDeps, req: Request, res: Response, buckets: readonly BucketName[]): Promise<boolean> {
  const actor = req.auth.context?.actor ?? null;
  const decision = await deps.limits.chargeAll(buckets, actor ? subjectOf(actor) : { kind: 'ip', ip: clientIp(req) });
  if (!decision.allowed) {
    sendRateLimited(res, decision, deps.publicBaseUrl);
    return false;
  }
  setRateLimitHeaders(res, decision);
  return true;
}

const parseForm = express.urlencoded({ extended: false, limit: 64 * 1024 });

/** The OAuth client of a token/userinfo request: HTTP Basic user, a client assertion's issuer, the form's `client_id`, or a bearer token's client. */
async function oauthClientId(req: Request, res: Response, deps: MeterDeps): Promise<string | null> {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.header('authorization') ?? '');
  if (bearer) return deps.clientOfAccessToken ? deps.clientOfAccessToken(bearer[1]) : null;
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
    const body = req.body as Record<string, unknown> | undefined;
    const id = body?.client_id ?? assertionIssuer(body?.client_assertion);
    if (typeof id === 'string' && id.length > 0 && id.length <= 200) return id;
  }
  return null;
}

/** A client assertion (private_key_jwt) names its client in `iss` (= `sub`); read unverified, for counting only. */
function assertionIssuer(assertion: unknown): string | null {
  if (typeof assertion !== 'string' || assertion.length > 8192) return null;
  try {
    const iss = (JSON.parse(Buffer.from(assertion.split('.')[1] ?? '', 'base64url').toString('utf8')) as { iss?: unknown }).iss;
    return typeof iss === 'string' ? iss : null;
  } catch {
    return null;
  }
}

/**
 * /v1 metering, mounted after `authenticate` and before the routes: every /v1 request is charged to
 * its bucket, including paths no route serves yet (they then 404 with headers), so the table holds
 * from day one. A wrong credential is answered 401 after its IP was charged.
 */
export function meterV1(deps: MeterDeps): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const bucket = bucketForRequest(req.method, `${req.baseUrl}${req.path}`);
      if (BUCKETS[bucket].per === 'client') {
        const clientId = await oauthClientId(req, res, deps);
        const subject: Subject = clientId ? { kind: 'client', id: clientId } : { kind: 'ip', ip: clientIp(req) };
        const d = await deps.limits.charge(bucket, subject);
        if (!d.allowed) return sendRateLimited(res, d, deps.publicBaseUrl);
        setRateLimitHeaders(res, d);
      } else if (!(await meterAuthenticated(deps, req, res, [bucket]))) {
        return;
      }
      next();
    } catch (err) {
      if (err instanceof DomainError) return answerDomainError(req, res, err);
      next(err);
    }
  };
}

/**
 * The root fields of the operation a request would run, one entry per response key (so aliases
 * count, and the same field spread twice under one key counts once, as GraphQL runs it once), or
 * null when it cannot be told (Apollo then answers 400).
 */
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
  const fields = new Map<string, string>(); // response key -> field name
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode): void => {
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) {
        if (!s.name.value.startsWith('__')) fields.set(s.alias?.value ?? s.name.value, s.name.value);
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
  return { operation: op.operation, fields: [...fields.values()] };
}

/**
 * GraphQL metering (docs/rate-limits.md), mounted after the JSON body parser and before Apollo: an operation is
 * charged one unit per root field it selects (aliases included) in that field's bucket, so ten
 * aliased `createSession` cost what ten REST calls cost; a refusal is the same HTTP 429 problem
 * document as on REST. Requests whose operation cannot be read are charged to `default`.
 */
export function meterGraphQL(deps: MeterDeps): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const params = (req.method === 'GET' ? req.query : req.body) as Record<string, unknown> | undefined;
      const op = rootFieldsOf(params?.query, params?.operationName);
      const buckets = op ? bucketsForGraphQL(op.operation, op.fields) : (['default'] as BucketName[]);
      // A wrong credential is left for Apollo's context function to refuse in GraphQL's shape.
      if (await meterAuthenticated(deps, req, res, buckets)) next();
    } catch (err) {
      next(err);
    }
  };
}

/** Routes whose credential is the link or none (GraphiQL, evidence, export links): one unit of `bucket` per request, counted per client IP; false when refused and answered. */
export function chargeClientIp(deps: MeterDeps, bucket: BucketName) {
  return async (req: Request, res: Response): Promise<boolean> => {
    const d = await deps.limits.charge(bucket, { kind: 'ip', ip: clientIp(req) });
    if (!d.allowed) {
      sendRateLimited(res, d, deps.publicBaseUrl);
      return false;
    }
    setRateLimitHeaders(res, d);
    return true;
  };
}

/** chargeClientIp as a middleware: the request goes on only when the address still has room. */
export function meterClientIp(deps: MeterDeps, bucket: BucketName) {
  const charge = chargeClientIp(deps, bucket);
  return (req: Request, res: Response, next: NextFunction): void => {
    charge(req, res).then((allowed) => allowed && next(), next);
  };
}

/** The OpenID Provider's routes: its auth buckets per OAuth client (meterV1), everything else there (discovery, JWKS, sign-in pages, revocation, logout) per client address in `default`. */
export function meterOidc(deps: MeterDeps): RequestHandler {
  const v1Meter = meterV1(deps);
  const ipMeter = meterClientIp(deps, 'default');
  return (req: Request, res: Response, next: NextFunction) => {
    if (BUCKETS[bucketForRequest(req.method, `${req.baseUrl}${req.path}`)].per === 'client') return void v1Meter(req, res, next);
    ipMeter(req, res, next);
  };
}
