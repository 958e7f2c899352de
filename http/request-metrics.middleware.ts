import type { Express, NextFunction, Request, Response } from 'express';
import { match } from 'path-to-regexp';
import type { PrometheusMetrics } from '../src/metrics/prometheus-metrics';
import { NON_RECORD_ROUTE_POLICY } from '../src/auth/authorization-policy';
import { inventoryRoutes } from './route-inventory';

/** The label of a request outside every mounted surface: raw paths never become label values (unbounded, and they carry ids). */
const UNMATCHED = 'unmatched';

type Template = { method: string; path: string; matches: (path: string) => boolean };
type Templates = {
  exact: Set<string>;
  /** Mount paths of handlers and not-found handlers (`/graphql`, `/v1/oidc`, `/v1`), longest first. */
  mounts: string[];
  /** The routes under each mount path ('' for none), in the app's order, which is express's order of matching. */
  byMount: Map<string, Template[]>;
};

/**
 * Times every request into `ivs_http_request_duration_seconds`, labelled with the route template
 * of the route inventory (http/route-inventory.ts) and the authorization policy's mount paths: `/v1/verify/sessions/:id`, never the id. The
 * template is the route express matched; for a request answered before routing (a rate-limit
 * refusal, a wrong credential) it is the inventory's template that matches its path; a request a
 * mounted handler answered (GraphQL, the OpenID Provider), or that matched nothing under a mount,
 * is labelled with the mount path. A request the client abandoned has status `aborted`.
 */
export function requestMetrics(app: Express, metrics: Pick<PrometheusMetrics, 'httpRequest'>) {
  let templates: Templates | undefined;
  const mountOf = (t: Pick<Templates, 'mounts'>, path: string): string => t.mounts.find((m) => path === m || path.startsWith(`${m}/`)) ?? '';
  // Read on the first answered request, when every route is mounted.
  const known = (): Templates => {
    if (templates) return templates;
    const routes = inventoryRoutes(app);
    // A surface mounted as middleware (GraphQL behind its body parser and authentication) is no
    // endpoint of the inventory, but the authorization policy names its mount path.
    const allPaths = [...routes, ...NON_RECORD_ROUTE_POLICY].filter((r) => r.method === 'ALL' && r.path !== '/').map((r) => r.path);
    const mounts = [...new Set(allPaths)].sort((a, b) => b.length - a.length);
    const byMount = new Map<string, Template[]>();
    for (const r of routes.filter((x) => x.method !== 'ALL')) {
      const matcher = match(r.path, { decode: false });
      const mount = mountOf({ mounts }, r.path);
      byMount.set(mount, [...(byMount.get(mount) ?? []), { method: r.method, path: r.path, matches: (p) => matcher(p) !== false }]);
    }
    templates = { exact: new Set(routes.filter((r) => r.method !== 'ALL').map((r) => r.path)), mounts, byMount };
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
    const mount = mountOf(t, path);
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    return t.byMount.get(mount)?.find((r) => r.method === method && r.matches(path))?.path ?? (mount || UNMATCHED);
  };
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = performance.now();
    res.once('close', () => {
      metrics.httpRequest(req.method, templateOf(req), res.writableFinished ? res.statusCode : 'aborted', (performance.now() - started) / 1000);
    });
    next();
  };
}
