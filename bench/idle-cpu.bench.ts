import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { NO_DOWNLOADS, startProcess, type Started } from './bench-support';
import { childOf, cpuSeconds } from './process-cpu';

/**
 * What an idle server costs (issue 44): CPU milliseconds per second of the started server (`node
 * dist/app/main.js`, workers on) and of its embedded database's process, with no request and no job,
 * against a bare express process idling in the same run. CPU time, not wall time: the machine may be
 * shared, and a busy neighbour slows a process without making it spend more.
 *
 * Env: DATABASE_URL (a PostgreSQL server: the bench makes a database of its own on it and drops it, and
 * counts the CPU of that database's backends when they run on this machine; unset, the embedded database), IDLE_SECONDS (60 per round), IDLE_ROUNDS (3), IDLE_SETTLE_SECONDS (20:
 * the start's own work, the first sanctions check and cron pass, is not idle).
 */
const SECONDS = Number(process.env.IDLE_SECONDS ?? 60);
const ROUNDS = Number(process.env.IDLE_ROUNDS ?? 3);
const SETTLE_SECONDS = Number(process.env.IDLE_SETTLE_SECONDS ?? 20);

type Measured = { pid: number; extraPid: number | null };

/**
 * CPU seconds so far of the PostgreSQL backends serving `database` (on this machine only: their pids are
 * read in /proc), by pid; a backend that ends during a round takes its CPU with it, so this is a floor.
 */
async function backendCpu(adminUrl: string, database: string): Promise<Map<number, number>> {
  const c = new Client({ connectionString: adminUrl });
  await c.connect();
  const { rows } = await c.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [database]);
  await c.end();
  return new Map(rows.map((r) => [r.pid, cpuSeconds(r.pid)]));
}

function backendMsPerSecond(before: Map<number, number>, after: Map<number, number>): number {
  let seconds = 0;
  for (const [pid, at] of before) if (after.has(pid)) seconds += after.get(pid)! - at;
  return (seconds * 1000) / SECONDS;
}

function msPerSecond(before: number, after: number): number {
  return ((after - before) * 1000) / SECONDS;
}

/** A database of this run's own on the PostgreSQL server of `url`; dropped by the returned function. */
async function ownDatabase(url: string): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const name = `ivs_idle_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const own = new URL(url);
  own.pathname = `/${name}`;
  return {
    url: own.toString(),
    name,
    drop: async () => {
      const c = new Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ivs-idle-'));
  const database = process.env.DATABASE_URL ? await ownDatabase(process.env.DATABASE_URL) : null;
  const started: Started[] = [];
  try {
    const baseline = await startProcess('bench/baseline-server.js', {});
    started.push(baseline);
    const server = await startProcess('app/main.js', {
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      ...(database ? { DATABASE_URL: database.url } : {}),
      // Nothing leaves the machine: an idle server with downloads on would be fetching lists, not idling.
      ...NO_DOWNLOADS,
    });
    started.push(server);
    const measured: Record<'baseline' | 'server', Measured> = {
      baseline: { pid: baseline.proc.pid!, extraPid: null },
      server: { pid: server.proc.pid!, extraPid: database ? null : childOf(server.proc.pid!) },
    };
    await new Promise((r) => setTimeout(r, SETTLE_SECONDS * 1000));
    console.log(`idle CPU, ${database ? 'PostgreSQL server' : 'embedded database'}: ${ROUNDS} rounds of ${SECONDS} s, ${os.cpus().length} cores\n`);
    console.log(`| round | bare express, ms/s | server, ms/s | ${database ? 'PostgreSQL backends of its database' : 'embedded database process'}, ms/s | server over bare express | load average (1/5/15 min) |`);
    console.log('|---|---|---|---|---|---|');
    for (let round = 1; round <= ROUNDS; round++) {
      const at = (m: Measured) => cpuSeconds(m.pid);
      const b0 = at(measured.baseline);
      const s0 = at(measured.server);
      const d0 = cpuSeconds(measured.server.extraPid);
      const pg0 = database ? await backendCpu(process.env.DATABASE_URL!, database.name) : null;
      await new Promise((r) => setTimeout(r, SECONDS * 1000));
      const bare = msPerSecond(b0, at(measured.baseline));
      const own = msPerSecond(s0, at(measured.server));
      const db = pg0 ? backendMsPerSecond(pg0, await backendCpu(process.env.DATABASE_URL!, database!.name)) : msPerSecond(d0, cpuSeconds(measured.server.extraPid));
      const load = os.loadavg().map((l) => l.toFixed(1)).join(' / ');
      console.log(`| ${round} | ${bare.toFixed(1)} | ${own.toFixed(1)} | ${db.toFixed(1)} | ${(own - bare).toFixed(1)} | ${load} |`);
    }
  } finally {
    for (const s of started.reverse()) await s.stop();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
