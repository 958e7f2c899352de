import 'reflect-metadata';
import { loadConfig } from './config';
import { buildContainer } from './container';
import { createHttpServer } from '../http/http-server';
import { exitWhenDatabaseLost } from './exit-when-database-lost';
import { createLogger } from './logger';

/**
 * The runtime the project pins (the node@22 devDependency, package.json engines). Older ones start,
 * but behave measurably worse: on Node 20 a 100,000-post export peaks 130-210 MB higher, all of it
 * array buffers and native memory outside the JS heap (docs/data-rights.md, "Benchmark").
 */
const SUPPORTED_NODE_MAJOR = 22;

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const nodeMajor = Number(process.versions.node.split('.')[0]);
  if (nodeMajor < SUPPORTED_NODE_MAJOR) logger.warn({ node: process.versions.node, supported: `${SUPPORTED_NODE_MAJOR} LTS` }, 'running on an older Node than the supported one; use the project\'s (npm start, npx)');
  const container = await buildContainer(config, logger);
  exitWhenDatabaseLost(container.database, logger);
  const { server, apollo, subscriptions } = await createHttpServer(container);
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info({ host: config.host, port, embedded: container.database.embedded, redis: Boolean(config.redisUrl) }, 'listening');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 20_000);
    force.unref();
    try {
      await subscriptions.close(); // completes every subscription, then closes the WebSockets
      await apollo.stop(); // drains in-flight HTTP requests and closes the server
      logger.info('http drained');
      await container.close();
      logger.info('stopped');
      process.exit(0);
    } catch (err) {
      logger.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  // Start-up failures (bad config, unreachable database) exit non-zero with one clear line.
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`fatal: ${message}\n`);
  process.exit(1);
});
