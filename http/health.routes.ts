import { timingSafeEqual, createHash } from 'node:crypto';
import http from 'node:http';
import express, { type Express, type Request, type Response } from 'express';
import type { Readiness } from '../src/health/readiness';
import type { PrometheusMetrics } from '../src/metrics/prometheus-metrics';
import { sendError } from './error-response';

/**
 * The unmetered operator routes (docs/operations.md, "Probes" and "Metrics"):
 * - `GET /healthz`, liveness: the cheap answer `liveness` gives (one `SELECT 1`, the rest from memory);
 * - `GET /readyz`, readiness: 503 naming what is not ready, 200 once everything is;
 * - `GET /metrics` on this port only with METRICS_TOKEN and no METRICS_PORT (else 404 here).
 */
export function healthRoutes(
  app: Express,
  deps: {
    liveness: () => Promise<{ ok: boolean; body: Record<string, unknown> }>;
    readiness: Readiness;
    metrics: PrometheusMetrics;
    /** Set: /metrics is served here behind `Authorization: Bearer <token>`. */
    metricsToken: string | undefined;
  },
): void {
  app.get('/healthz', async (_req, res) => {
    const { ok, body } = await deps.liveness();
    res.status(ok ? 200 : 503).json(body);
  });
  app.get('/readyz', async (_req, res) => {
    const r = await deps.readiness.report();
    res.status(r.ready ? 200 : 503).json({ status: r.ready ? 'ready' : 'not_ready', checks: r.checks, reasons: r.reasons, not_ready: r.not_ready });
  });
  const token = deps.metricsToken;
  if (token) {
    app.get('/metrics', async (req, res) => {
      if (!bearerMatches(req, token)) {
        res.setHeader('www-authenticate', 'Bearer realm="metrics"');
        return sendError(res, 'unauthorized', 'Missing or invalid metrics token');
      }
      await sendScrape(res, deps.metrics);
    });
  }
}

/**
 * /metrics alone on its own port (METRICS_PORT), with no token: that port is meant to be reachable
 * only from the scraper's network. Everything else there is 404.
 */
export function metricsServer(metrics: PrometheusMetrics): http.Server {
  const app = express();
  app.disable('x-powered-by');
  app.get('/metrics', async (_req, res) => sendScrape(res, metrics));
  app.use((_req: Request, res: Response) => sendError(res, 'not_found', 'No such endpoint'));
  return http.createServer(app);
}

/**
 * A worker's probe port (METRICS_PORT on `npm run worker`, which has no HTTP otherwise): `/healthz` and
 * `/readyz` as on an API instance, and `/metrics` without a token, as on any METRICS_PORT. For an
 * orchestrator's probes and the scraper of the check engines' own metrics (docs/deploy.md).
 */
export function probeServer(deps: Omit<Parameters<typeof healthRoutes>[1], 'metricsToken'>): http.Server {
  const app = express();
  app.disable('x-powered-by');
  healthRoutes(app, { ...deps, metricsToken: undefined });
  app.get('/metrics', async (_req, res) => sendScrape(res, deps.metrics));
  app.use((_req: Request, res: Response) => sendError(res, 'not_found', 'No such endpoint'));
  return http.createServer(app);
}

async function sendScrape(res: Response, metrics: PrometheusMetrics): Promise<void> {
  const { contentType, body } = await metrics.scrape();
  res.type(contentType).send(body);
}

/** Compared as SHA-256 digests, so the comparison takes the same time whatever the length sent. */
function bearerMatches(req: Request, token: string): boolean {
  const sent = /^Bearer\s+(\S+)\s*$/i.exec(req.header('authorization') ?? '')?.[1];
  if (!sent) return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(sent), digest(token));
}
