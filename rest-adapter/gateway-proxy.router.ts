import http from 'node:http';
import https from 'node:https';
import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import { Router, type Request, type Response } from 'express';
import { createProxyMiddleware, proxyEventsPlugin } from 'http-proxy-middleware';
import { SERVICE_ACTOR_HEADER, type ServiceActorIssuer } from '../src/gateway/service-actor';
import { sendError } from '../http/error-response';

/** The /v1 prefixes the gateway hands to the social upstream (docs/decisions.md D18), with everything below them. */
export const GATEWAY_PATHS = ['/social', '/profiles', '/network'];

/** RFC 9110 §7.6.1 connection-specific fields, dropped both ways, with any the Connection header names. */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade'];

export type GatewayProxyDeps = { upstreamUrl: string | undefined; timeoutMs: number; actors: ServiceActorIssuer };

/**
 * /v1/social, /v1/profiles and /v1/network, after authentication and metering: streamed both ways
 * to SOCIAL_UPSTREAM_URL + the same path and query by http-proxy-middleware, with the caller's
 * Authorization replaced by a Service-Actor JWT. Failures are the error body: 503
 * upstream_not_configured, 502 upstream_unreachable, 504 upstream_timeout.
 */
export function gatewayProxyRouter(d: GatewayProxyDeps, v1: Router = Router()): Router {
  const upstreamUrl = d.upstreamUrl;
  // Mounted with `use` and answering every request itself: one endpoint per prefix in the route inventory (http/route-inventory.ts).
  if (!upstreamUrl) {
    v1.use(GATEWAY_PATHS, (_req: Request, res: Response) => {
      sendError(res, 'upstream_not_configured', 'This service has no upstream for /v1/social, /v1/profiles and /v1/network (SOCIAL_UPSTREAM_URL is not set)');
    });
    return v1;
  }
  const target = new URL(upstreamUrl);
  // Kept-alive connections to the upstream: a new TCP connection per call would be most of the overhead.
  const agent = target.protocol === 'https:' ? new https.Agent({ keepAlive: true, maxSockets: 256 }) : new http.Agent({ keepAlive: true, maxSockets: 256 });
  const proxy = createProxyMiddleware({
    target: upstreamUrl,
    agent,
    changeOrigin: true,
    xfwd: false,
    // The same path and query as the caller's, under the upstream's base URL.
    pathRewrite: (_path, req) => (req as Request).originalUrl,
    // No logging of bodies or URLs by the library; the access log records the request.
    ejectPlugins: true,
    plugins: [proxyEventsPlugin],
    on: {
      proxyReq: (proxyReq: ClientRequest, req: IncomingMessage, res: ServerResponse) => {
        const r = res as Response;
        for (const name of hopByHop(req.headers)) proxyReq.removeHeader(name);
        proxyReq.removeHeader('authorization');
        proxyReq.removeHeader('cookie');
        proxyReq.setHeader(SERVICE_ACTOR_HEADER, String(r.locals.serviceActor));
        proxyReq.setHeader('request-id', String(r.getHeader('request-id') ?? ''));
        // Silence for this long (before or during the answer) is a timeout: 504 if nothing was sent yet.
        proxyReq.setTimeout(d.timeoutMs, () => {
          r.locals.upstreamTimedOut = true;
          proxyReq.destroy();
        });
      },
      proxyRes: (proxyRes: IncomingMessage) => {
        for (const name of hopByHop(proxyRes.headers)) delete proxyRes.headers[name];
      },
      error: (err: Error, _req: IncomingMessage, res: ServerResponse | import('node:net').Socket) => {
        if (!('setHeader' in res)) return void res.destroy();
        const r = res as Response;
        if (r.headersSent) return void r.destroy();
        if (r.locals.upstreamTimedOut) return sendError(r, 'upstream_timeout', `The upstream did not answer within ${d.timeoutMs / 1000} s`);
        r.req.log?.warn({ code: (err as NodeJS.ErrnoException).code }, 'gateway upstream unreachable');
        sendError(r, 'upstream_unreachable', 'The upstream could not be reached');
      },
    },
  });
  const failed = (res: Response) => (err?: unknown) => {
    res.req.log?.error({ err }, 'gateway proxy failed');
    if (!res.headersSent) sendError(res, 'internal_error', 'Internal server error');
  };
  // The policy gate on /v1 (guard `gateway`) has already refused no credential and a client_secret.
  v1.use(GATEWAY_PATHS, (req: Request, res: Response) => {
    const actor = req.auth.context!.actor!;
    res.locals.serviceActor = d.actors.sign(d.actors.claimsOf(actor, req.id));
    void proxy(req, res, failed(res)).catch(failed(res));
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

function hopByHop(headers: http.IncomingHttpHeaders): string[] {
  const named = String(headers.connection ?? '')
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter(Boolean);
  return [...HOP_BY_HOP, ...named];
}
