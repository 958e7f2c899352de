import type { Express } from 'express';

/** One endpoint the app serves: `ALL` for a handler mounted with `use` that answers every method under `path`. */
export type InventoriedRoute = { method: string; path: string };

// The shapes of express 5's router (the `router` package 2.x) that the walk reads; they are not in its typings.
type Layer = { rawPath?: string | string[]; route?: { path: string | string[]; methods: Record<string, boolean> }; handle: ((...args: unknown[]) => unknown) & { stack?: Layer[] } };

const join = (base: string, path: string): string => `${base.replace(/\/$/, '')}${path === '/' ? '' : path}` || '/';
const pathsOf = (p: string | string[] | undefined): string[] => (p === undefined ? ['/'] : Array.isArray(p) ? p.flat(Infinity as 1) : [p]);

/**
 * Every endpoint of `app`, read from its router stacks (nested routers included): each route with its
 * methods, and each handler mounted with `use` that ends the request (it takes no `next`, as the OpenID
 * Provider's does). Middleware (takes `next`) is not an endpoint. The authorization policy
 * (src/auth/authorization-policy.ts) must name every entry: the server refuses to start otherwise.
 */
export function inventoryRoutes(app: Express): InventoriedRoute[] {
  const found: InventoriedRoute[] = [];
  const walk = (stack: Layer[], base: string): void => {
    for (const layer of stack) {
      if (layer.route) {
        const methods = Object.keys(layer.route.methods).filter((m) => layer.route!.methods[m]).map((m) => (m === '_all' ? 'ALL' : m.toUpperCase()));
        for (const p of pathsOf(layer.route.path)) for (const method of methods) found.push({ method, path: join(base, p) });
      } else if (layer.handle.stack) {
        for (const p of pathsOf(layer.rawPath)) walk(layer.handle.stack, join(base, p));
      } else if (layer.handle.length <= 2) {
        for (const p of pathsOf(layer.rawPath)) found.push({ method: 'ALL', path: join(base, p) });
      }
    }
  };
  walk((app.router as unknown as { stack: Layer[] }).stack, '');
  const seen = new Set<string>();
  return found.filter((r) => {
    const key = `${r.method} ${r.path}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
}
