import type { Database } from '../src/db/database';
import type { Logger } from '../src/logger';

/**
 * The server and the worker, whichever started the embedded database's own process, start it again
 * when it ends under them (src/db/embedded-database-keeper.ts): `npm start` has no supervisor, so
 * exiting would leave the service down. Each step is logged; /readyz says `database_restarting`.
 */
export function keepEmbeddedDatabase(database: Database, logger: Logger): void {
  database.keeper?.on({
    lost: (reason) => logger.error({ reason }, 'embedded database lost; starting it again'),
    restarted: (attempts) => logger.warn({ attempts, restarts: database.keeper?.restarts }, 'embedded database started again'),
    restartFailed: (err, attempt) => logger.error({ attempt, err: err.message }, 'embedded database did not start again; retrying'),
  });
}
