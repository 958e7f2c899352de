import { serveEmbeddedPostgres } from './embedded-postgres';

/**
 * The embedded database's own process (src/db/embedded-postgres.ts starts it): PGlite on the
 * DATA_DIR given as the argument, served on the unix socket there. It says so to its parent over
 * IPC, and closes the database and exits when that channel closes: the parent stopped, or died.
 */
async function main(): Promise<void> {
  const dataDir = process.argv[2];
  if (!dataDir || !process.send) throw new Error('usage: started by openEmbeddedPostgres with an IPC channel and DATA_DIR');
  const served = await serveEmbeddedPostgres(dataDir);
  let closing = false;
  const close = async () => {
    if (closing) return;
    closing = true;
    await served.close();
    process.exit(0);
  };
  process.once('disconnect', () => void close());
  // The parent's signals reach the whole process group (Ctrl-C): stop with it, through the same close.
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => void close());
  process.send('serving');
}

main().catch((err: unknown) => {
  process.stderr.write(`embedded database: ${(err as Error).message}\n`);
  process.exit(1);
});
