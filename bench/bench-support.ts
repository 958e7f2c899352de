import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import autocannon from 'autocannon';

export const ROOT = path.resolve(__dirname, '..', '..');
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

export type Started = { url: string; proc: ChildProcess; stop(): Promise<void> };

/** Starts a compiled entry point and waits for its `listening` log line. */
export async function startProcess(script: string, env: NodeJS.ProcessEnv): Promise<Started> {
  const proc = spawn(process.execPath, [path.join(ROOT, 'dist', script)], { env: { PATH: process.env.PATH, PORT: '0', LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start`)), 60_000);
    const lines = readline.createInterface({ input: proc.stdout! });
    lines.on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; port?: number };
        if (entry.msg === 'listening' && entry.port) {
          clearTimeout(timer);
          lines.close();
          proc.stdout!.resume(); // keep draining request logs without parsing them
          resolve(entry.port);
        }
      } catch {
        /* not JSON */
      }
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    proc,
    stop: () =>
      new Promise<void>((resolve) => {
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
      }),
  };
}

export function cliJson(env: NodeJS.ProcessEnv, args: string[]): Record<string, unknown> {
  const out = execFileSync(process.execPath, [path.join(ROOT, 'dist', 'src', 'cli.js'), ...args, '--json'], { env: { PATH: process.env.PATH, ...env } });
  return JSON.parse(out.toString()) as Record<string, unknown>;
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
