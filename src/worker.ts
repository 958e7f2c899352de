import 'reflect-metadata';
import { loadConfig } from './config';
import { buildContainer } from './container';
import { exitWhenDatabaseLost } from './exit-when-database-lost';
import { createLogger } from './logger';

/** Background jobs only, no HTTP: `npm run worker`, beside API instances started with WORKER_ENABLED=false. */
async function main(): Promise<void> {
  const config = { ...loadConfig(), workerEnabled: true };
  const logger = createLogger(config.logLevel);
  const container = await buildContainer(config, logger);
  exitWhenDatabaseLost(container.database, logger);
  logger.info('worker started');
  const stop = async () => {
    await container.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

main().catch((err: unknown) => {
  process.stderr.write(`fatal: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
