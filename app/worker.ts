import 'reflect-metadata';
import { loadConfig } from '../src/config';
import { buildContainer } from './container';
import { keepEmbeddedDatabase } from './keep-embedded-database';
import { createLogger } from '../src/logger';
import { exitOnSignals } from './process-exit';

/**
 * The check engines and every background job, no HTTP: `npm run worker`, beside API instances started
 * with WORKER_ENABLED=false CHECK_WORKERS=0. Several share the job queue (pg-boss hands each job to one);
 * docs/operations.md, "Workers".
 */
async function main(): Promise<void> {
  // The same environment as the API instances, with the jobs on whatever WORKER_ENABLED says there (CHECK_WORKERS=0 is refused here).
  const config = loadConfig({ ...process.env, WORKER_ENABLED: 'true' });
  const logger = createLogger(config.logLevel);
  const container = await buildContainer(config, logger);
  keepEmbeddedDatabase(container.database, logger);
  // Loaded now, not on the first check: a worker exists to run them, and its first sessions should not wait for the models.
  await container.checkProviders.warm();
  logger.info({ pid: process.pid, check_engines: container.checkProviders.health() }, 'worker started');
  // Running jobs get pg-boss's graceful stop, then go back to the queue; the deadline ends the rest (app/process-exit.ts).
  exitOnSignals(logger, () => container.close());
}

main().catch((err: unknown) => {
  process.stderr.write(`fatal: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
