import '../src/compile-cache';
import 'reflect-metadata';
import { loadConfig, STAGING_IS_PRODUCTION, stagingEqualsProduction } from '../src/config';
import { buildContainer } from './container';
import type { Server } from 'node:http';
import { createHttpServer } from './http-server';
import { metricsServer } from '../http/health.routes';
import { keepEmbeddedDatabase } from './keep-embedded-database';
import { createLogger } from '../src/logger';
import { exitOnSignals, flushLogAndExit } from './process-exit';
import type { Logger } from '../src/logger';
import { workerThreadsSizeTheirOwnYoungGeneration } from './worker-young-generation';

/** The log, once there is one: a start-up failure exits without waiting on it (app/process-exit.ts). */
let startedLogger: Logger | undefined;

/**
 * The runtime the project pins (the node@22 devDependency, package.json engines). Older ones start,
 * but behave measurably worse: on Node 20 a 100,000-post export peaks 130-210 MB higher, all of it
 * array buffers and native memory outside the JS heap (docs/data-rights.md, "Benchmark").
 */
const SUPPORTED_NODE_MAJOR = 22;

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  startedLogger = logger;
  const nodeMajor = Number(process.versions.node.split('.')[0]);
  if (nodeMajor < SUPPORTED_NODE_MAJOR) logger.warn({ node: process.versions.node, supported: `${SUPPORTED_NODE_MAJOR} LTS` }, 'running on an older Node than the supported one; use the project\'s (npm start, npx)');
  // A production instance refuses this (src/config.ts); elsewhere it is said once, so /openapi.yaml's two servers being one is no surprise.
  if (config.environment !== 'staging' && stagingEqualsProduction(config.publicBaseUrl, config.stagingBaseUrl)) {
    logger.warn({ environment: config.environment, public_base_url: new URL(config.publicBaseUrl).origin }, `${STAGING_IS_PRODUCTION}; set STAGING_BASE_URL to tell them apart`);
  }
  // Before the check engines' threads start (they keep V8's own young generation; npm start's 4 MB is this thread's).
  workerThreadsSizeTheirOwnYoungGeneration();
  const container = await buildContainer(config, logger);
  keepEmbeddedDatabase(container.database, logger);
  const { server, apollo, subscriptions } = await createHttpServer(container);
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info({ host: config.host, port, embedded: container.database.embedded, redis: Boolean(config.redisUrl) }, 'listening');
  const metrics = config.metrics.port === undefined ? null : await listenForScrapes(metricsServer(container.metrics), config.metrics.port, config.host);
  if (metrics) logger.info({ metrics_port: metrics.port }, 'metrics listening');

  // Each step is bounded so that together they end well before the deadline (app/process-exit.ts):
  // subscriptions 3 s, HTTP drain HTTP_DRAIN_MS, then the jobs (pg-boss hands running jobs back after 10 s).
  exitOnSignals(logger, async () => {
    container.readiness.drain();
    await settledWithin(SUBSCRIPTIONS_CLOSE_MS, subscriptions.close()); // completes every subscription, then closes the WebSockets
    await apollo.stop(); // drains in-flight HTTP requests, then cuts the ones still running (uploads at a crawl) and closes the server
    metrics?.server.closeAllConnections();
    await new Promise((resolve) => (metrics ? metrics.server.close(resolve) : resolve(undefined)));
    logger.info('http drained');
    await container.close();
  });
}

async function listenForScrapes(server: Server, port: number, host: string): Promise<{ server: Server; port: number }> {
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : port };
}

/** How long open subscriptions get to receive `complete` and close; a client that never answers the close is cut by the HTTP drain. */
const SUBSCRIPTIONS_CLOSE_MS = 3_000;

/** Waits for `work`, but no longer than `ms`: a step that overruns leaves the rest of the shutdown its time. */
async function settledWithin(ms: number, work: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work.catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

main().catch((err: unknown) => {
  // Start-up failures (bad config, unreachable database) exit non-zero with one clear line.
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`fatal: ${message}\n`);
  // What was logged before the failure gets its bounded second to reach a reader (app/process-exit.ts).
  if (startedLogger) void flushLogAndExit(startedLogger, 1);
  else process.exit(1);
});
