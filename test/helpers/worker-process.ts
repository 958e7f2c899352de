import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { ROOT } from './test-server';

const WORKER = path.join(ROOT, 'dist', 'app', 'worker.js');
/** The check-worker tier's command (WORKER_QUEUES=checks). */
export const CHECK_WORKER = path.join(ROOT, 'dist', 'app', 'check-worker.js');

export type WorkerProcess = {
  pid: number;
  proc: ChildProcess;
  /** Every log line so far (JSON lines on stdout, anything else from stderr). */
  logs: string[];
  /** The sessions whose checks this worker decided, from its `checks decided` log lines. */
  decided(): string[];
  /** SIGTERM and wait for the exit. */
  stop(): Promise<number | null>;
};

/**
 * Starts `node dist/app/worker.js` as `npm run worker` starts it, with `env` only, and waits for its
 * `worker started` line (the engines are loaded by then).
 */
export async function startWorker(env: NodeJS.ProcessEnv, timeoutMs = 480_000, script = WORKER): Promise<WorkerProcess> {
  const proc = spawn(process.execPath, [script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const killOnExit = () => proc.kill('SIGKILL');
  process.once('exit', killOnExit);
  const logs: string[] = [];
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  proc.stderr!.on('data', (d: Buffer) => logs.push(d.toString()));
  const entries: { msg?: string; sessionId?: string }[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${logs.join('\n')}`)), timeoutMs);
    readline.createInterface({ input: proc.stdout! }).on('line', (line) => {
      logs.push(line);
      try {
        const entry = JSON.parse(line) as { msg?: string; sessionId?: string };
        entries.push(entry);
        if (entry.msg === 'worker started') {
          clearTimeout(timer);
          resolve();
        }
      } catch {
        /* not a log line */
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code} before it started:\n${logs.join('\n')}`));
    });
  });
  return {
    pid: proc.pid!,
    proc,
    logs,
    decided: () => entries.filter((e) => e.msg === 'checks decided' && e.sessionId).map((e) => e.sessionId!),
    stop: async () => {
      process.off('exit', killOnExit);
      if (proc.exitCode !== null || proc.signalCode !== null) return proc.exitCode;
      proc.kill('SIGTERM');
      return exited;
    },
  };
}
