/**
 * The gateway's forwarder alone, for `bench/forwarder-ab.bench.ts`: a bare express app (no authentication,
 * no signature, no access log; express for the `res.status` of the error bodies) whose every request goes to UPSTREAM through the
 * GatewayForwarder compiled at FORWARDER (a gateway-forwarder.js, of this build or another), so that two
 * builds' forwarders can be compared by the CPU they alone spend per proxied request.
 */
import express from 'express';
import type { GatewayForwarder as Forwarder } from '../http/gateway-forwarder';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { GatewayForwarder } = require(process.env.FORWARDER ?? '../http/gateway-forwarder') as { GatewayForwarder: typeof Forwarder };
const forwarder = new GatewayForwarder(process.env.UPSTREAM!, 10_000);

const app = express();
app.disable('x-powered-by');
app.get('/healthz', (_req, res) => void res.end('ok'));
app.use((req, res) => {
  // The fields the router adds: a Service-Actor of the usual size (an ES256 JWT), a request id.
  forwarder.forward(req, res, { path: req.originalUrl, body: { kind: 'none' }, connectionNames: [], headers: { 'service-actor': ACTOR, 'request-id': 'req_0123456789abcdefghij' } });
});
const ACTOR = `eyJhbGciOiJFUzI1NiJ9.${'x'.repeat(300)}.${'y'.repeat(86)}`;
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
server.keepAliveTimeout = 60_000;
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
