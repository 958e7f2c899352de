import path from 'node:path';
import type { EmbeddedPostgres } from '../../src/db/embedded-postgres';
import { ROOT } from './test-server';

/**
 * The compiled module that starts the embedded database's own process: its entry sits beside it only in dist (under
 * ts-jest the source module would find no entry and serve PGlite in the jest worker itself).
 */
const EMBEDDED_POSTGRES = path.join(ROOT, 'dist', 'src', 'db', 'embedded-postgres.js');

/**
 * Serves the embedded database of `env`'s DATA_DIR for a test file whose CLI calls run without a server, as a
 * server serves it: the server's own `openEmbeddedPostgres`, the same process on the same socket, which each CLI
 * call then connects to. Without it every call opens PGlite itself and closes it again (issue 44: 0.9 s of CPU and
 * 5-9 s of wall time a call at load 30, against 0.25 s and 0.5-1.3 s through the socket). Does nothing on a
 * PostgreSQL server (DATABASE_URL). The process ends with its IPC channel: at `close()`, or when the jest worker exits.
 */
export async function serveEmbeddedDatabase(env: NodeJS.ProcessEnv): Promise<Pick<EmbeddedPostgres, 'close'>> {
  if (env.DATABASE_URL || !env.DATA_DIR) return { close: async () => undefined };
  const { openEmbeddedPostgres } = (await import(EMBEDDED_POSTGRES)) as typeof import('../../src/db/embedded-postgres');
  return openEmbeddedPostgres(env.DATA_DIR);
}
