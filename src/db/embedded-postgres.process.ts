import '../compile-cache';
import { serveEmbeddedPostgres } from './embedded-postgres';

/** The exit code when PGlite's session ended under a FATAL error (EX_SOFTWARE). */
const SESSION_ENDED_EXIT_CODE = 70;

/**
 * The embedded database's own process (src/db/embedded-postgres.ts starts it): PGlite on the
 * DATA_DIR given as the argument, served on the unix socket there. It says so to its parent over
 * IPC, and closes the database and exits when that channel closes: the parent stopped, or died.
 */
async function main(): Promise<void> {
  const dataDir = process.argv[2];
  if (!dataDir || !process.send) throw new Error('usage: started by openEmbeddedPostgres with an IPC channel and DATA_DIR');
  const served = await serveEmbeddedPostgres(dataDir, (why) => {
    // Nothing more can be served from this PGlite: exit with a code of our own, so the owner (the
    // server, src/db/embedded-database-keeper.ts) starts the database again on the same files.
    process.stderr.write(`embedded database: ${why}; exiting for a restart\n`);
    process.exit(SESSION_ENDED_EXIT_CODE);
  });
  let closing = false;
  const close = async () => {
    if (closing) return;
    closing = true;
    await served.close();
    process.exit(0);
  };
  process.once('disconnect', () => void close());
  // Ctrl-C reaches the whole process group: ignore it here and close when the parent, shutting down
  // in its own order, lets go of the channel. A SIGTERM meant for this process closes it at once.
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => void close());
  process.send('serving');
}

main().catch((err: unknown) => {
  process.stderr.write(`embedded database: ${(err as Error).message}\n`);
  process.exit(1);
});
