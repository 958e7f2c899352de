import { ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { startCommand } from './start-command';

// Also right when compiled into dist/test/helpers (a benchmark that starts servers).
const UP = path.resolve(__dirname, '..', '..');
export const ROOT = path.basename(UP) === 'dist' ? path.dirname(UP) : UP;
const START = startCommand(ROOT);
const MAIN = path.join(ROOT, START.entry);
const CLI = path.join(ROOT, 'dist', 'app', 'cli.js');

export type TestServer = {
  url: string;
  port: number;
  env: NodeJS.ProcessEnv;
  logs: string[];
  /** The log so far, once every line written until now has surely arrived (the server buffers its log for up to 200 ms). */
  settledLogs(): Promise<string>;
  proc: ChildProcess;
  /** SIGTERM and wait for a clean exit. */
  stop(): Promise<number | null>;
  /** SIGKILL: a crash, with no chance to clean up. */
  kill9(): Promise<void>;
};

/**
 * Environment for a test server: the embedded database in a fresh DATA_DIR, unless the suite runs
 * against real services (DATABASE_URL / REDIS_URL set by .ci/run), which are then passed through.
 */
export const TEST_JOB_SCHEMA_PREFIX = 'pgboss_t_';

/**
 * The job schemas of one jest run share a prefix with the run's id (TEST_RUN_ID, set in jest.config.js), so
 * that run's teardown drops its own schemas only: dropping every `pgboss_t_` schema took the job queue away
 * from the servers of another run still going on the same database, whose session creations then failed.
 */
export function jobSchemaPrefixOfThisRun(): string {
  return `${TEST_JOB_SCHEMA_PREFIX}${process.env.TEST_RUN_ID ?? 'x'}_`;
}
/** More than the server's log flush interval (src/logger.ts). */
const LOG_SETTLE_MS = 500;

/**
 * The account portal's client secret in tests: a test plays the portal's backend, which redeems its
 * codes at the token endpoint for a /v1 token with `data_rights` (test/helpers/oidc-login.ts portalAccessToken).
 */
/** Every live check engine switched off: a live session waits for a person, with its captures in the vault (no models load). */
export const ENGINES_OFF = { CHECK_DOCUMENT_ENGINE: 'off', CHECK_FACE_MATCH_ENGINE: 'off', CHECK_LIVENESS_ENGINE: 'off', CHECK_ANTI_SPOOF_ENGINE: 'off' } as const;

export const TEST_PORTAL_CLIENT_SECRET = 'portal-secret-for-tests-0123456789abcdefghijklmnop';
/** Every SANCTIONS_URL_* switched off (test/e2e/sanctions-loading.test.ts starts servers with the defaults and with local sources). */
export const SANCTIONS_DOWNLOADS_OFF = {
  SANCTIONS_URL_OFAC: 'off',
  SANCTIONS_URL_EU: 'off',
  SANCTIONS_URL_UK: 'off',
  SANCTIONS_URL_UN: 'off',
  SANCTIONS_URL_AU: 'off',
} as const;

/**
 * The name every DATA_DIR of this jest run's test servers starts with, in the system's temporary directory:
 * test/global-teardown.ts removes them (a copy of the migrated embedded database is about 42 MB, and a full run
 * starts some 150 servers: 6 GB a run left behind otherwise). Outside a jest run (a benchmark) there is none.
 */
export function runDataDirPrefix(): string | undefined {
  return process.env.TEST_RUN_ID ? `ivs-run-${process.env.TEST_RUN_ID}-` : undefined;
}

const newDataDir = () => fs.mkdtempSync(path.join(os.tmpdir(), runDataDirPrefix() ?? 'ivs-'));

/** Where this jest run keeps its migrated embedded database (removed by test/global-teardown.ts). */
export function embeddedTemplateDir(): string {
  return path.join(os.tmpdir(), `ivs-template-${process.env.TEST_RUN_ID}`);
}

/**
 * A fresh DATA_DIR holding an embedded database already migrated by `cli migrate`, copied from one made once per
 * jest run (issue 44: creating the cluster and running every migration cost each test server 5-40 s of a start,
 * mostly waiting on the disk, against 0.2 s for the copy). Each copy is its own database; the server's own first
 * start (keys, settings) still happens in it. Made by whichever worker asks first; a worker that loses the race to
 * rename its copy into place uses the winner's.
 */
function migratedDataDir(): string {
  const template = embeddedTemplateDir();
  if (!fs.existsSync(template)) {
    const building = fs.mkdtempSync(`${template}-building-`);
    execFileSync(process.execPath, [CLI, 'migrate'], { env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: building }, stdio: 'ignore', timeout: 480_000 });
    try {
      fs.renameSync(building, template);
    } catch {
      fs.rmSync(building, { recursive: true, force: true });
    }
  }
  const dir = newDataDir();
  fs.cpSync(template, dir, { recursive: true });
  return dir;
}

/**
 * `fresh`: an empty DATA_DIR, as a newcomer's first `npm start` finds it (the embedded database is created and
 * migrated by the server); otherwise, on the embedded database, one already migrated (migratedDataDir).
 */
export function testEnv(extra: NodeJS.ProcessEnv = {}, { fresh = false }: { fresh?: boolean } = {}): NodeJS.ProcessEnv {
  // Only inside a jest run (TEST_RUN_ID): a benchmark's servers start as a newcomer's do, from an empty DATA_DIR.
  const embedded = !!process.env.TEST_RUN_ID && !process.env.DATABASE_URL && !extra.DATABASE_URL && !extra.DATA_DIR;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATA_DIR: embedded && !fresh ? migratedDataDir() : newDataDir(),
    LOG_LEVEL: 'info',
    PORT: '0',
    HOST: '127.0.0.1',
    // The tests' webhook receivers listen on 127.0.0.1 (test/e2e/security.test.ts proves the default refuses it).
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    // Servers of one testEnv() share rate-limit counts; those of other test files, on the same CI
    // Redis, must not (they all come from 127.0.0.1, whose unauthenticated requests are counted).
    RATE_LIMIT_REDIS_PREFIX: `rl-${randomBytes(6).toString('hex')}`,
    ACCOUNT_PORTAL_CLIENT_SECRET: TEST_PORTAL_CLIENT_SECRET,
    // The lists' downloads default to the official servers: a test server fetches nothing unless its
    // test points a list at a local server (30-odd files start servers; with a network each would
    // download every list, without one each would log failures).
    ...SANCTIONS_DOWNLOADS_OFF,
    // GLEIF needs no credential, so it is on by default: tests point it at a local server (test/helpers/registry-server.ts) or leave it off.
    REGISTRY_GLEIF_URL: 'off',
  };
  if (process.env.DATABASE_URL) {
    env.DATABASE_URL = process.env.DATABASE_URL;
    // On the shared CI database, another file's server must not claim this file's jobs (it may be
    // killed with -9 holding them); test/global-teardown.ts drops these schemas after the run.
    env.JOB_SCHEMA = `${jobSchemaPrefixOfThisRun()}${randomBytes(6).toString('hex')}`;
  }
  if (process.env.REDIS_URL) env.REDIS_URL = process.env.REDIS_URL;
  return { ...env, ...extra };
}

/** Starts the compiled server (`npm test` builds first) as its own process and waits until it listens. */
export async function startServer(env: NodeJS.ProcessEnv = testEnv()): Promise<TestServer> {
  const proc = spawn(process.execPath, [...START.nodeFlags, MAIN], { env: { ...env, PORT: env.PORT ?? '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  // A test that times out never reaches its stop(): the worker's exit still takes the server down.
  const killOnExit = () => proc.kill('SIGKILL');
  process.once('exit', killOnExit);
  const logs: string[] = [];
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  proc.stderr!.on('data', (d: Buffer) => logs.push(d.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Not left running: a server that never said it listens would outlive the test run.
      proc.kill('SIGKILL');
      reject(new Error(`server did not start:\n${logs.join('')}`));
    }, 480_000); // a start on a loaded 2-core machine has taken 75 s, and over 120 s at load 40 (below the tests' 600 s ceiling)
    readline.createInterface({ input: proc.stdout! }).on('line', (line) => {
      logs.push(line);
      try {
        const entry = JSON.parse(line) as { msg?: string; port?: number };
        if (entry.msg === 'listening' && entry.port) {
          clearTimeout(timer);
          resolve(entry.port);
        }
      } catch {
        /* not a log line */
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${logs.join('\n')}`));
    });
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    env: { ...env, PORT: String(port) },
    logs,
    settledLogs: async () => {
      await new Promise((r) => setTimeout(r, LOG_SETTLE_MS));
      return logs.join('\n');
    },
    proc,
    stop: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return proc.exitCode;
      proc.kill('SIGTERM');
      return exited;
    },
    kill9: async () => {
      proc.kill('SIGKILL');
      await exited;
    },
  };
}

export type CliResult = { code: number; json: Record<string, unknown> | null; stdout: string; stderr: string };

/**
 * Runs the CLI with the server's environment (through the socket when embedded) and parses its --json output.
 * A `--json` command goes to a `cli batch` process kept for that environment (cliBatch below), which answers with
 * what its own process would have printed; the rest (human output, and the commands a batch refuses or whose
 * process is what a test is about: `migrate`, `audit`, `webhooks listen`) start a process of their own.
 */
export function cli(env: NodeJS.ProcessEnv, args: string[]): Promise<CliResult> {
  return args.includes('--json') && !OWN_PROCESS_COMMANDS.has(args[0]) ? cliBatch(env).run(args) : cliProcess(env, args);
}

/** The first words of commands that always get their own process from `cli`. */
const OWN_PROCESS_COMMANDS = new Set(['migrate', 'audit', 'webhooks', 'batch']);

/** One CLI process for one command, as an operator runs it: its exit code, stdout and stderr; `input` is its standard input. */
export function cliProcess(env: NodeJS.ProcessEnv, args: string[], { input }: { input?: string } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [CLI, ...args], { env, timeout: 300_000 } /* a hang bound only: a CLI start at load 40 takes tens of seconds */, (err, stdout, stderr) => {
      let json: Record<string, unknown> | null = null;
      try {
        json = JSON.parse(stdout) as Record<string, unknown>;
      } catch {
        /* not JSON */
      }
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, json, stdout, stderr });
    });
    child.stdin!.end(input);
  });
}

type BatchLine = { exit_code: number; result?: Record<string, unknown>; error?: Record<string, unknown>; usage?: string };

/**
 * `npm run cli -- batch` for one environment, started on its first command and ended with the test file: a test
 * file's setup runs the CLI dozens of times (tenants, keys, members, mail), and each process start cost some 0.5 s of
 * CPU, a fifth of the suite's (docs/benchmarks.md, "The test suite's time"). The commands run one at a time, in
 * the order given, each opening and closing the database as its own process would.
 */
class CliBatch {
  private readonly proc: ChildProcess;
  private readonly waiting: ((line: BatchLine | null) => void)[] = [];
  private stderr = '';

  constructor(env: NodeJS.ProcessEnv) {
    this.proc = spawn(process.execPath, [CLI, 'batch'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.proc.stderr!.on('data', (d: Buffer) => (this.stderr += d.toString()));
    readline.createInterface({ input: this.proc.stdout! }).on('line', (line) => {
      this.waiting.shift()?.(JSON.parse(line) as BatchLine);
      if (!this.waiting.length) this.hold(false);
    });
    this.proc.once('exit', () => {
      for (const resolve of this.waiting.splice(0)) resolve(null);
    });
    this.proc.stdin!.on('error', () => undefined); // a batch that died is reported by its command's result
  }

  /** An idle batch does not keep the test process running (a bench that ran a command exits when it is done). */
  private hold(busy: boolean): void {
    for (const handle of [this.proc, this.proc.stdin, this.proc.stdout, this.proc.stderr] as unknown as { ref(): void; unref(): void }[]) {
      if (busy) handle.ref();
      else handle.unref();
    }
  }

  run(args: string[]): Promise<CliResult> {
    this.hold(true);
    return new Promise((resolve) => {
      this.waiting.push((line) => {
        if (!line) return resolve({ code: 1, json: null, stdout: '', stderr: `the CLI batch process ended: ${this.stderr}` });
        if (line.exit_code === 2) return resolve({ code: 2, json: null, stdout: '', stderr: `${line.usage ?? ''}\n` });
        const json = line.exit_code === 0 ? line.result! : { error: line.error };
        resolve({ code: line.exit_code, json, stdout: `${JSON.stringify(json)}\n`, stderr: '' });
      });
      this.proc.stdin!.write(`${JSON.stringify(args)}\n`);
    });
  }

  /** Ends its input: the process exits once the command it is running is done. */
  end(): void {
    this.proc.stdin!.end();
  }
}

const cliBatches = new Map<string, CliBatch>();

function cliBatch(env: NodeJS.ProcessEnv): CliBatch {
  const key = JSON.stringify(Object.entries(env).sort(([a], [b]) => (a < b ? -1 : 1)));
  let b = cliBatches.get(key);
  if (!b) {
    b = new CliBatch(env);
    cliBatches.set(key, b);
  }
  return b;
}

// Each test file has its own copy of this module (jest's registry), so its batches end with it. Outside jest (a bench), they end with the process.
const jestAfterAll = (globalThis as { afterAll?: (fn: () => void) => void }).afterAll;
if (jestAfterAll) {
  jestAfterAll(() => {
    for (const b of cliBatches.values()) b.end();
    cliBatches.clear();
  });
}

export type Tenant = { tenant_id: string; test_api_key: string; live_api_key: string };

export async function createTenant(server: Pick<TestServer, 'env'>, name = 'acme'): Promise<Tenant> {
  const r = await cli(server.env, ['tenant', 'create', '--name', name, '--json']);
  if (r.code !== 0 || !r.json) throw new Error(`tenant create failed: ${r.stderr} ${r.stdout}`);
  return r.json as unknown as Tenant;
}

export type HttpResult = { status: number; headers: Headers; body: any; text: string };

/** A small JSON client: `body` is parsed JSON when the response is JSON. */
export async function http(
  server: Pick<TestServer, 'url'>,
  method: string,
  pathname: string,
  opts: { key?: string; json?: unknown; body?: string; headers?: Record<string, string> } = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let body = opts.body;
  if (opts.json !== undefined) {
    body = JSON.stringify(opts.json);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${server.url}${pathname}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

export async function graphql(
  server: Pick<TestServer, 'url'>,
  query: string,
  variables: Record<string, unknown> = {},
  key?: string,
): Promise<HttpResult> {
  return http(server, 'POST', '/graphql', { key, json: { query, variables } });
}

/**
 * The first log line of `server` that contains `match` (or matches it), once it has been written. A server writes its
 * log lines up to 200 ms after logging them (src/logger.ts), later on a loaded machine: a test waits for the line
 * itself, with a ceiling that only bounds a hang, instead of reading the log after a fixed pause.
 */
export async function loggedLine(server: Pick<TestServer, 'logs'>, match: string | RegExp, ceilingMs = 60_000): Promise<string> {
  const found = () => server.logs.join('\n').split('\n').find((l) => (typeof match === 'string' ? l.includes(match) : match.test(l)));
  return eventually(async () => found(), ceilingMs, 100);
}

/**
 * Every log line `server` has written up to the response line of the request whose `request-id` header is
 * `requestId`. The server writes its lines in the order it logs them and logs a response's line once the response
 * is sent, so whatever was logged while handling that request, or before it, is there: a test that counts error lines
 * waits for this event instead of a fixed pause (issue 47), which a loaded machine can outlast.
 */
export async function logsThrough(server: Pick<TestServer, 'logs'>, requestId: string, ceilingMs = 60_000): Promise<string> {
  await loggedLine(server, new RegExp(`"request_id":"${requestId}".*"msg":"request"`), ceilingMs);
  return server.logs.join('\n');
}

/** Polls until `check` returns a value, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 60_000, everyMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
