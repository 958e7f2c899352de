import { fork } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { keepExtendedProtocolSequencesTogether } from './pglite-extended-protocol';

/** libpq's socket file name for port 5432, so `psql -h <DATA_DIR>` finds it. */
export const SOCKET_FILE = '.s.PGSQL.5432';

/** The compiled entry of the database's own process (absent when the sources run under ts-jest). */
const PROCESS_ENTRY = path.join(__dirname, 'embedded-postgres.process.js');
const START_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 20_000;
/**
 * The database's process runs PostgreSQL's WebAssembly on V8's baseline compiler only (Liftoff). With the
 * optimising tier, V8 recompiles in background threads whatever a start and its first queries made hot: 1.3 s
 * more CPU per start on a migrated database (2.3-2.7 against 0.8-1.05 s), which short statements never earn back
 * (30,000 inserts and lookups took the same time either way), while a sort or aggregate over 200,000 rows runs
 * about 1.4x slower. The embedded database serves a developer, a trial and the tests; volumes belong on a
 * PostgreSQL server (docs/benchmarks.md, "The test realm's globals, and the embedded database's start").
 */
const DATABASE_PROCESS_V8_FLAGS = ['--liftoff-only'];
/**
 * PostgreSQL's buffer pool in PGlite's WebAssembly memory, in place of the 128 MB initdb writes into
 * postgresql.conf: PGlite touches the whole pool as it starts, so each 32 MB costs a start about 0.1 s
 * of CPU and the process 32 MB of RSS whether or not the data ever fills it. A page past the pool is
 * read through Node's file system from the operating system's cache (docs/benchmarks.md, "The embedded
 * database's buffer pool"). A `shared_buffers` in the data directory's postgresql.auto.conf (`ALTER
 * SYSTEM`) does not override this: command-line settings win.
 */
const SHARED_BUFFERS = '32MB';

export type EmbeddedPostgres = {
  socketDir: string;
  /** Settles with a reason if the database's own process ends without `close()` (a crash, the OOM killer); never otherwise. */
  lost: Promise<string>;
  /** This process started the database's own process (else another process serves the socket, or it runs in this one). */
  owned: boolean;
  close(): Promise<void>;
};

/** The `lost` of a database nothing here can lose: another process's socket, or a PostgreSQL server. */
export const NEVER_LOST = new Promise<string>(() => undefined);

function canConnect(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(socketPath);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * PGlite admits one process, so the first process to open DATA_DIR serves it on a unix socket inside
 * DATA_DIR, and every other process (the CLI, psql, a second server) connects through that socket.
 *
 * The server does not host PGlite itself: it starts it in a child process and connects through the
 * socket like everyone else. PostgreSQL compiled to WebAssembly holds 280-430 MB that the server's
 * own memory figures should not carry (docs/data-rights.md, "Benchmark"), and its queries no longer
 * share the server's event loop. The child ends with its parent (the IPC channel closes).
 */
export async function openEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  fs.mkdirSync(dataDir, { recursive: true });
  const socketPath = path.join(dataDir, SOCKET_FILE);
  if (fs.existsSync(socketPath)) {
    if (await canConnect(socketPath)) {
      return { socketDir: dataDir, lost: NEVER_LOST, owned: false, close: async () => {} };
    }
    fs.rmSync(socketPath, { force: true }); // left behind by a process that died
  }
  if (!fs.existsSync(PROCESS_ENTRY)) {
    const served = await serveEmbeddedPostgres(dataDir);
    return { socketDir: dataDir, lost: NEVER_LOST, owned: false, close: served.close };
  }
  return startDatabaseProcess(dataDir);
}

/**
 * Opens PGlite on DATA_DIR's files in this process and serves it on the socket. `onSessionEnded`:
 * PGlite's one session ended anyway (a FATAL error; src/db/pglite-extended-protocol.ts), so the
 * database must be opened again: the database's own process exits for its owner to start it again.
 */
export async function serveEmbeddedPostgres(dataDir: string, onSessionEnded?: (why: string) => void): Promise<{ close(): Promise<void> }> {
  const socketPath = path.join(dataDir, SOCKET_FILE);
  const db = await PGlite.create({ dataDir: path.join(dataDir, 'pgdata'), startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`] });
  // Every pool connection is multiplexed onto PGlite's single session; the default of 1 would refuse the second.
  const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections: 200 });
  keepExtendedProtocolSequencesTogether(server, onSessionEnded);
  await server.start();
  return {
    close: async () => {
      await server.stop();
      await db.close();
      fs.rmSync(socketPath, { force: true });
    },
  };
}

async function startDatabaseProcess(dataDir: string): Promise<EmbeddedPostgres> {
  // stdout stays ours: the server's first stdout line is read by whoever started it.
  const child = fork(PROCESS_ENTRY, [dataDir], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv: DATABASE_PROCESS_V8_FLAGS });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the embedded database did not start within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
    child.once('message', () => {
      clearTimeout(timer);
      resolve();
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the embedded database process exited with ${code} before serving ${dataDir}`));
    });
  });
  // Neither the child nor its channel keeps this process alive: when it exits, the channel closes and the child follows.
  child.unref();
  child.channel?.unref();
  let closing = false;
  const lost = exited.then((code) => (closing ? NEVER_LOST : `the embedded database process ended (exit code ${code}, signal ${child.signalCode})`));
  return {
    socketDir: dataDir,
    lost,
    owned: true,
    close: async () => {
      closing = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const force = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      child.disconnect(); // the child closes PGlite and its socket, then exits
      await exited;
      clearTimeout(force);
    },
  };
}
