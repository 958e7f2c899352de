import type { Express, NextFunction, Request, Response } from 'express';
import type { PrometheusMetrics } from '../src/metrics/prometheus-metrics';
import { inventoryRoutes } from './route-inventory';

/** The label of a request that matched no route: raw paths never become label values (unbounded, and they carry ids). */
const UNMATCHED = 'unmatched';

type Templates = { exact: Set<string>; prefixes: string[] };

/**
 * Times every request into `ivs_http_request_duration_seconds`, labelled with the route template
 * of the route inventory (http/route-inventory.ts): `/v1/verify/sessions/:id`, never the id. A
 * request a mounted handler answered (GraphQL, the OpenID Provider) is labelled with its mount
 * path. A request the client abandoned is labelled `aborted`.
 */
export function requestMetrics(app: Express, metrics: Pick<PrometheusMetrics, 'httpRequest'>) {
  let templates: Templates | undefined;
  // Read on the first answered request, when every route is mounted.
  const known = (): Templates => {
    if (templates) return templates;
    const routes = inventoryRoutes(app);
    templates = {
      exact: new Set(routes.filter((r) => r.method !== 'ALL').map((r) => r.path)),
      // Longest first, so `/v1/oidc` wins over `/v1`; `/` (the not-found handler) is no template.
      prefixes: routes.filter((r) => r.method === 'ALL' && r.path !== '/').map((r) => r.path).sort((a, b) => b.length - a.length),
    };
    return templates;
  };
  const templateOf = (req: Request): string => {
    const t = known();
    const route = (req.route as { path?: unknown } | undefined)?.path;
    if (typeof route === 'string') {
      const full = `${req.baseUrl.replace(/\/$/, '')}${route === '/' ? '' : route}` || '/';
      if (t.exact.has(full)) return full;
    }
    const path = req.originalUrl.split('?')[0];
    return t.prefixes.find((p) => path === p || path.startsWith(`${p}/`)) ?? UNMATCHED;
  };
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = performance.now();
    res.once('close', () => {
      metrics.httpRequest(req.method, templateOf(req), res.writableFinished ? res.statusCode : 'aborted', (performance.now() - started) / 1000);
    });
    next();
  };
}
