import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { keepExtendedProtocolSequencesTogether } from './pglite-extended-protocol';

/** libpq's socket file name for port 5432, so `psql -h <DATA_DIR>` finds it. */
export const SOCKET_FILE = '.s.PGSQL.5432';

export type EmbeddedPostgres = {
  socketDir: string;
  /** True when this process opened the files; false when it joined another process's socket. */
  owner: boolean;
  close(): Promise<void>;
};

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
 */
export async function openEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  fs.mkdirSync(dataDir, { recursive: true });
  const socketPath = path.join(dataDir, SOCKET_FILE);
  if (fs.existsSync(socketPath)) {
    if (await canConnect(socketPath)) {
      return { socketDir: dataDir, owner: false, close: async () => {} };
    }
    fs.rmSync(socketPath, { force: true }); // left behind by a process that died
  }
  const db = await PGlite.create({ dataDir: path.join(dataDir, 'pgdata') });
  // Every pool connection is multiplexed onto PGlite's single session; the default of 1 would refuse the second.
  const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections: 200 });
  keepExtendedProtocolSequencesTogether(server);
  await server.start();
  return {
    socketDir: dataDir,
    owner: true,
    close: async () => {
      await server.stop();
      await db.close();
      fs.rmSync(socketPath, { force: true });
    },
  };
}
