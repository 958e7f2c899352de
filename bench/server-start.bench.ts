import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { median, NO_DOWNLOADS, ROOT, SERVER_NODE_FLAGS } from './bench-support';
import { childOf, cpuSeconds, rssMb } from './process-cpu';

/**
 * What a server start costs (issue 44, goal 6: the test suite starts some 150 of them): the server
 * process's CPU (user + system) at the moment it logs `listening`, its embedded database process's at the
 * same moment, and the RSS of both a second later; against a bare express process loading express and
 * pg and listening, started the same way in the same rounds. Each start is on a fresh copy of an embedded
 * DATA_DIR that the build's own `cli migrate` made once, as the test servers start (test/helpers/test-server.ts).
 *
 * Env: START_ROUNDS (8), BENCH_BASELINE_DIST (another build's dist, e.g. a copy of main's before a change,
 * kept inside the checkout so that it finds node_modules: started in the same rounds, interleaved).
 */
const ROUNDS = Number(process.env.START_ROUNDS ?? 8);

type Build = { name: string; dist: string; template: string };
type Sample = { serverCpu: number; databaseCpu: number; rssMb: number; databaseRssMb: number };

const QUIET_ENV = { LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0', ...NO_DOWNLOADS };

/** The bare process: express and pg loaded, one route, listening on a free port; says `listening` as the server does. */
const BARE = `
const express = require('express'); require('pg');
const app = express(); app.get('/', (_q, r) => r.json({}));
const s = app.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ msg: 'listening', port: s.address().port })));
process.on('SIGTERM', () => s.close(() => process.exit(0)));
`;

function migratedTemplate(dist: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ivs-start-template-'));
  execFileSync(process.execPath, [path.join(dist, 'app', 'cli.js'), 'migrate', '--json'], { env: { PATH: process.env.PATH, DATA_DIR: dir }, stdio: 'ignore' });
  return dir;
}

async function startOnce(args: string[], env: NodeJS.ProcessEnv, withDatabase: boolean): Promise<Sample> {
  const proc = spawn(process.execPath, args, { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'ignore'], cwd: ROOT });
  await new Promise<void>((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code} before listening`)));
    readline.createInterface({ input: proc.stdout! }).on('line', (line) => {
      if (line.includes('"msg":"listening"')) resolve();
    });
  });
  const serverCpu = cpuSeconds(proc.pid!);
  const database = withDatabase ? childOf(proc.pid!) : null;
  const databaseCpu = database === null ? 0 : cpuSeconds(database);
  await new Promise((r) => setTimeout(r, 1000));
  const serverRssMb = rssMb(proc.pid!);
  const databaseRssMb = database === null ? 0 : rssMb(database);
  await new Promise<void>((resolve) => {
    proc.removeAllListeners('exit');
    proc.once('exit', () => resolve());
    proc.kill('SIGTERM');
  });
  return { serverCpu, databaseCpu, rssMb: serverRssMb, databaseRssMb };
}

async function startBuild(b: Build): Promise<Sample> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ivs-start-'));
  fs.cpSync(b.template, dataDir, { recursive: true });
  try {
    return await startOnce([...SERVER_NODE_FLAGS, path.join(b.dist, 'app', 'main.js')], { ...QUIET_ENV, DATA_DIR: dataDir }, true);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const builds: Build[] = [{ name: 'this build', dist: path.join(ROOT, 'dist'), template: '' }];
  if (process.env.BENCH_BASELINE_DIST) builds.push({ name: 'baseline build', dist: path.resolve(process.env.BENCH_BASELINE_DIST), template: '' });
  for (const b of builds) b.template = migratedTemplate(b.dist);
  const samples = new Map<string, Sample[]>([['bare express + pg', []], ...builds.map((b) => [b.name, []] as [string, Sample[]])]);
  try {
    for (let round = 0; round < ROUNDS; round++) {
      samples.get('bare express + pg')!.push(await startOnce(['-e', BARE], {}, false));
      // Alternating which build goes first: a round's order is not what the figures show.
      for (const b of round % 2 ? [...builds].reverse() : builds) samples.get(b.name)!.push(await startBuild(b));
    }
  } finally {
    for (const b of builds) fs.rmSync(b.template, { recursive: true, force: true });
  }
  const bare = median(samples.get('bare express + pg')!.map((s) => s.serverCpu));
  console.log(`server start, ${ROUNDS} interleaved rounds (CPU at "listening"; medians, min-max)`);
  for (const [name, xs] of samples) {
    const cpu = xs.map((s) => s.serverCpu);
    const db = xs.map((s) => s.databaseCpu);
    const rss = xs.map((s) => s.rssMb);
    const dbRss = xs.map((s) => s.databaseRssMb);
    const range = (v: number[]) => `${Math.min(...v).toFixed(2)}-${Math.max(...v).toFixed(2)}`;
    console.log(
      `${name.padEnd(18)} server ${median(cpu).toFixed(2)} s (${range(cpu)}), ${(median(cpu) / bare).toFixed(1)}x the bare process; database ${median(db).toFixed(2)} s (${range(db)}); RSS ${median(rss).toFixed(0)} MB, its database's ${median(dbRss).toFixed(0)} MB`,
    );
  }
}

void main();
