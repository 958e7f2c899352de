import 'reflect-metadata';
import { loadConfig } from './config';
import { buildContainer } from './container';
import { exitWhenDatabaseLost } from './exit-when-database-lost';
import { createLogger } from './logger';
import { exitOnSignals } from './process-exit';

/** Background jobs only, no HTTP: `npm run worker`, beside API instances started with WORKER_ENABLED=false. */
async function main(): Promise<void> {
  const config = { ...loadConfig(), workerEnabled: true };
  const logger = createLogger(config.logLevel);
  const container = await buildContainer(config, logger);
  exitWhenDatabaseLost(container.database, logger);
  logger.info('worker started');
  // Running jobs get pg-boss's graceful stop, then go back to the queue; the deadline ends the rest (src/process-exit.ts).
  exitOnSignals(logger, () => container.close());
}

main().catch((err: unknown) => {
  process.stderr.write(`fatal: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
