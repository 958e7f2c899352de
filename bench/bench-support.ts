import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { startCommand } from '../test/helpers/start-command';

export const ROOT = path.resolve(__dirname, '..', '..');
/** The node flags `npm start` gives the server (package.json), read once. */
export const SERVER_NODE_FLAGS = startCommand(ROOT).nodeFlags;
/**
 * Where the started server (`app/*.js`) and the CLI come from: BENCH_SERVER_DIST, another build of the service
 * (a copy of an earlier build kept inside the checkout, so that it finds node_modules), measured by this
 * checkout's benches: before and after a change in the same time window on a shared machine. Else this checkout's dist.
 */
const SERVER_DIST = process.env.BENCH_SERVER_DIST ? path.resolve(process.env.BENCH_SERVER_DIST) : path.join(ROOT, 'dist');
const distOf = (script: string) => (script.startsWith('app/') ? path.join(SERVER_DIST, script) : path.join(ROOT, 'dist', script));
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** A started server that fetches nothing on its own: every sanctions list's download and GLEIF off (a bench measures the server, not a download). */
export const NO_DOWNLOADS = {
  SANCTIONS_URL_OFAC: 'off',
  SANCTIONS_URL_EU: 'off',
  SANCTIONS_URL_UK: 'off',
  SANCTIONS_URL_UN: 'off',
  SANCTIONS_URL_AU: 'off',
  REGISTRY_GLEIF_URL: 'off',
} as const;

export type Started = { url: string; proc: ChildProcess; stop(): Promise<void> };

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Starts a compiled entry point on a free port and waits until `/healthz` answers. Its logs go to a
 * file, as they would to a log shipper: a pipe drained by the load generator's own busy process
 * would block the server's log writes and measure the bench, not the server.
 */
export async function startProcess(script: string, env: NodeJS.ProcessEnv): Promise<Started> {
  const port = await freePort();
  const logFile = path.join(os.tmpdir(), `bench-${path.basename(script, '.js')}-${port}.log`);
  const out = fs.openSync(logFile, 'w');
  // The server gets npm start's node flags; BENCH_NODE_ARGS: more node flags for the started
  // processes, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` (NODE_OPTIONS refuses --cpu-prof).
  const startFlags = script === 'app/main.js' ? SERVER_NODE_FLAGS : [];
  const nodeArgs = [...startFlags, ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)];
  const proc = spawn(process.execPath, [...nodeArgs, distOf(script)], {
    env: { PATH: process.env.PATH, LOG_LEVEL: 'info', ...env, PORT: String(port) },
    stdio: ['ignore', out, 'inherit'],
  });
  fs.closeSync(out);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 180_000; // the embedded database starts slowly on a busy machine
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${script} exited; see ${logFile}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`${script} did not start; see ${logFile}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    proc,
    stop: () =>
      new Promise<void>((resolve) => {
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
      }),
  };
}

export function cliJson(env: NodeJS.ProcessEnv, args: string[]): Record<string, unknown> {
  const out = execFileSync(process.execPath, [distOf('app/cli.js'), ...args, '--json'], { env: { PATH: process.env.PATH, ...env } });
  return JSON.parse(out.toString()) as Record<string, unknown>;
}

/** The middle value (the mean of the two middle ones for an even count): the verdict of interleaved rounds. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

export type Measured = { name: string; rps: number; p50: number; p99: number; errors: number; non2xx: number };

export async function measure(name: string, opts: autocannon.Options): Promise<Measured> {
  const r = await autocannon({ connections: 16, duration: Number(process.env.BENCH_SECONDS ?? 10), ...opts });
  return { name, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
}

export function printTable(rows: Measured[]): void {
  console.log('| case | req/s | p50 ms | p99 ms | errors | non-2xx |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.non2xx} |`);
}

/** Ends an in-process benchmark: closes the container, drops its job schema on a server database, removes its data directory. */
export async function closeInProcess(c: { close(): Promise<void> }, databaseUrl: string | undefined, jobSchema: string, dataDir: string): Promise<void> {
  await c.close();
  if (databaseUrl) {
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${jobSchema} CASCADE`);
    await client.end();
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}
