/**
 * A bare express process for `npm run bench:public-route`, built up to STAGE, each stage adding one of
 * the server's own steps in front of the cheapest public route (GATEWAY_KEYS_PATH) in the server's order:
 * - `empty`: express alone, an empty 200;
 * - `json`: the route's own answer (ANSWER, the server's JSON body, with its cache-control);
 * - `context`: + the request id and the access log (http/request-context.middleware.ts, pino to stdout, a file);
 * - `metrics`: + the request-duration histogram (http/request-metrics.middleware.ts) in front of that.
 * Whatever the server costs beyond `metrics` is its router: the other mounts a request passes before this route.
 */
import express from 'express';
import { requestContext } from '../http/request-context.middleware';
import { requestMetrics } from '../http/request-metrics.middleware';
import { GATEWAY_KEYS_PATH } from '../rest-adapter/gateway-proxy.router';
import { createLogger } from '../src/logger';
import { PrometheusMetrics } from '../src/metrics/prometheus-metrics';

const STAGES = ['empty', 'json', 'context', 'metrics'];
const stage = STAGES.indexOf(process.env.STAGE ?? 'empty');
if (stage < 0) throw new Error(`STAGE must be one of ${STAGES.join(', ')}`);
const answer = JSON.parse(process.env.ANSWER ?? '{}') as unknown;

const app = express();
app.disable('x-powered-by');
app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
if (stage >= 3) app.use(requestMetrics(app, new PrometheusMetrics({ queues: () => Promise.resolve([]), sanctionsListAges: () => ({}) })));
if (stage >= 2) app.use(requestContext(app, createLogger('info')));
app.get(GATEWAY_KEYS_PATH, (_req, res) => {
  if (stage === 0) return void res.end();
  res.setHeader('cache-control', 'public, max-age=300');
  res.json(answer);
});
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
server.keepAliveTimeout = 60_000;
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
