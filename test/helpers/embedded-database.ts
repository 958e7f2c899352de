import { fork } from 'node:child_process';
import path from 'node:path';
import { DATABASE_PROCESS_V8_FLAGS } from '../../src/db/database-process-flags';
import { ROOT } from './test-server';

/** The compiled entry of the embedded database's own process (src/db/embedded-postgres.process.ts). */
const DATABASE_PROCESS = path.join(ROOT, 'dist', 'src', 'db', 'embedded-postgres.process.js');

/**
 * Serves the embedded database of `env`'s DATA_DIR for a test file whose CLI calls run without a server, as a
 * server serves it: the same process, on the same socket, which each CLI call then connects to. Without it every
 * call opens PGlite itself and closes it again (issue 44: 0.9 s of CPU and 5-9 s of wall time a call at load 30,
 * against 0.25 s and 0.5-1.3 s through the socket). Does nothing on a PostgreSQL server (DATABASE_URL).
 * The process ends with its IPC channel: at `close()`, or when the jest worker exits.
 */
export async function serveEmbeddedDatabase(env: NodeJS.ProcessEnv): Promise<{ close(): Promise<void> }> {
  if (env.DATABASE_URL || !env.DATA_DIR) return { close: async () => undefined };
  const child = fork(DATABASE_PROCESS, [env.DATA_DIR], { env, stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv: DATABASE_PROCESS_V8_FLAGS });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    void exited.then((code) => reject(new Error(`the embedded database process exited with ${code} before serving ${env.DATA_DIR}`)));
  });
  return {
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.disconnect(); // the process closes PGlite and its socket, then exits
      await exited;
    },
  };
}
