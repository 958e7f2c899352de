import type { Database } from '../src/db/database';
import type { Logger } from '../src/logger';
import { flushLogAndExit } from './process-exit';

/**
 * Without its database a process can only fail its work: the server and the worker exit 1 when the
 * embedded database's process ends under them, so a supervisor starts both again.
 */
export function exitWhenDatabaseLost(database: Database, logger: Logger): void {
  void database.lost.then((reason) => {
    logger.error({ reason }, 'database lost; exiting');
    // The line above is still in the log's buffer: give it its bounded second to reach a reader.
    void flushLogAndExit(logger, 1);
  });
}
