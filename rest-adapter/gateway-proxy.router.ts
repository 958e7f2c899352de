import { Router, type Request, type Response } from 'express';
import { SERVICE_ACTOR_HEADER, type ServiceActorIssuer } from '../src/gateway/service-actor';
import { DomainError } from '../src/errors';
import { answerDomainError, sendError } from '../http/error-response';
import { requestFraming } from '../http/gateway-request-framing';
import { upstreamPathOf } from '../http/gateway-upstream-path';

/** The /v1 prefixes the gateway hands to the social upstream (docs/decisions.md D18), with everything below them. */
export const GATEWAY_PATHS = ['/social', '/profiles', '/network'];

export type GatewayProxyDeps = { upstreamUrl: string | undefined; timeoutMs: number; actors: ServiceActorIssuer };

/**
 * /v1/social, /v1/profiles and /v1/network, after authentication and metering: streamed both ways
 * to SOCIAL_UPSTREAM_URL + the same (normalised) path and query by http/gateway-forwarder.ts, with the
 * caller's Authorization replaced by a Service-Actor JWT (docs/gateway.md). Refused with 400
 * invalid_request, before anything goes upstream: ambiguous framing (http/gateway-request-framing.ts)
 * and a path that leaves its surface (http/gateway-upstream-path.ts). Upstream failures are the error
 * body: 503 upstream_not_configured, 502 upstream_unreachable, 504 upstream_timeout.
 */
export async function gatewayProxyRouter(d: GatewayProxyDeps, v1: Router = Router()): Promise<Router> {
  // Mounted with `use` and answering every request itself: one endpoint per prefix in the route inventory (http/route-inventory.ts).
  if (!d.upstreamUrl) {
    v1.use(GATEWAY_PATHS, (_req: Request, res: Response) => {
      sendError(res, 'upstream_not_configured', 'This service has no upstream for /v1/social, /v1/profiles and /v1/network (SOCIAL_UPSTREAM_URL is not set)');
    });
    return v1;
  }
  // Loaded only here, with an upstream to send to: undici is some 110 modules a server without one never uses.
  const { GatewayForwarder } = await import('../http/gateway-forwarder.js');
  const forwarder = new GatewayForwarder(d.upstreamUrl, d.timeoutMs);
  // The policy gate on /v1 (guard `gateway`) has already refused no credential and a client_secret.
  v1.use(GATEWAY_PATHS, (req: Request, res: Response) => {
    const framing = requestFraming(req.method, req.rawHeaders);
    if (!framing.ok) {
      // RFC 9112 §6.3: after a request whose framing is in doubt, the connection is not reused.
      res.setHeader('connection', 'close');
      return answerDomainError(req, res, new DomainError('invalid_request', framing.reason));
    }
    // The surface the request came in by (express matched it case-insensitively): the upstream path stays under it.
    const surface = `/v1${GATEWAY_PATHS.find((p) => `/v1${p}` === req.baseUrl.toLowerCase()) ?? '/social'}`;
    const path = upstreamPathOf(req.originalUrl, surface);
    if (path === null) return answerDomainError(req, res, new DomainError('invalid_request', `The path must stay under ${surface}/ once its dot-segments are resolved, with no escaped slash or backslash`));
    const actor = req.auth.context!.actor!;
    forwarder.forward(req, res, {
      path,
      body: framing.body,
      connectionNames: framing.connectionNames,
      headers: { [SERVICE_ACTOR_HEADER]: d.actors.tokenFor(actor), 'request-id': String(res.getHeader('request-id') ?? '') },
    });
  });
  return v1;
}

/** The public keys of the Service-Actor header, for upstreams to verify it (no credential needed). */
export function gatewayKeysRoute(app: Router, actors: ServiceActorIssuer): void {
  app.get(GATEWAY_KEYS_PATH, (_req, res) => {
    res.setHeader('cache-control', 'public, max-age=300');
    res.json(actors.jwks());
  });
}

export const GATEWAY_KEYS_PATH = '/v1/.well-known/gateway-keys';
