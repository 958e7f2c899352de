import '../src/compile-cache';
import 'reflect-metadata';
import { loadConfig } from '../src/config';
import { buildContainer } from './container';
import { keepEmbeddedDatabase } from './keep-embedded-database';
import { createLogger } from '../src/logger';
import { exitOnSignals } from './process-exit';
import { probeServer } from '../http/health.routes';
import { livenessOf } from './liveness-of';

/**
 * The check engines and every background job, no HTTP: `npm run worker`, beside API instances started
 * with WORKER_ENABLED=false CHECK_WORKERS=0. Several share the job queue (pg-boss hands each job to one);
 * WORKER_QUEUES splits them into a jobs tier and a check-worker tier (`dist/app/check-worker.js`);
 * docs/operations.md, "Workers".
 */
export async function runWorker(overrides: NodeJS.ProcessEnv = {}): Promise<void> {
  // The same environment as the API instances, with the jobs on whatever WORKER_ENABLED says there.
  const config = loadConfig({ ...process.env, ...overrides, WORKER_ENABLED: 'true' });
  const logger = createLogger(config.logLevel);
  const container = await buildContainer(config, logger);
  keepEmbeddedDatabase(container.database, logger);
  // Loaded now, not on the first check: a worker exists to run them, and its first sessions should not wait for the models.
  await container.checkProviders.warm();
  // METRICS_PORT: /healthz, /readyz and /metrics for an orchestrator and a scraper; a worker has no other port.
  const probes = config.metrics.port === undefined ? null : probeServer({ liveness: () => livenessOf(container), readiness: container.readiness, metrics: container.metrics });
  if (probes) await new Promise<void>((resolve) => probes.listen(config.metrics.port, config.host, resolve));
  const address = probes?.address();
  const probePort = typeof address === 'object' && address ? address.port : undefined;
  logger.info({ pid: process.pid, queues: config.workerQueues, check_engines: container.checkProviders.health(), probe_port: probePort }, 'worker started');
  // Running jobs get pg-boss's graceful stop, then go back to the queue; the deadline ends the rest (app/process-exit.ts).
  exitOnSignals(logger, async () => {
    container.readiness.drain();
    probes?.closeAllConnections();
    await new Promise((resolve) => (probes ? probes.close(resolve) : resolve(undefined)));
    await container.close();
  });
}

export function runWorkerProcess(overrides: NodeJS.ProcessEnv = {}): void {
  runWorker(overrides).catch((err: unknown) => {
    process.stderr.write(`fatal: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}

if (require.main === module) runWorkerProcess();
