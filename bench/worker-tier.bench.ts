import fs from 'node:fs';
import os from 'node:os';
import { packageImage } from './checks/face-images';
import { openPage, pageCall, upload, type PageSession } from '../test/helpers/hosted-client';
import { passportFields, passportPhoto } from '../test/helpers/live-session';
import { createTenant, http, startServer, testEnv, type TestServer } from '../test/helpers/test-server';
import { startWorker, type WorkerProcess } from '../test/helpers/worker-process';
import { cpuSeconds } from './process-cpu';

/**
 * npm run bench:worker-tier — live T1 sessions decided per second by one process (the default: the API,
 * the jobs and CHECK_WORKERS unset, one engine thread per core) against one API instance
 * (WORKER_ENABLED=false CHECK_WORKERS=0) plus two `npm run worker` processes (CHECK_WORKERS=1 each, so
 * the same two engine threads in all), in the same run, on the same database.
 *
 * Each layout first decides two sessions (warm-up), then N sessions are captured through the hosted
 * API up to the submit; all N are submitted at once and the clock runs from the first submit until the
 * last session has left `processing`. CPU seconds of every process (the API, each worker, the embedded
 * database's process) are read from /proc over that window, so it shows whether the cores are the limit.
 *
 * Env: DATABASE_URL (else the embedded database in one DATA_DIR shared by both layouts), WORKER_BENCH_SESSIONS (16),
 * WORKER_BENCH_THREADS (engine threads per worker process, 1).
 */
const SESSIONS = Number(process.env.WORKER_BENCH_SESSIONS ?? 16);
const THREADS = process.env.WORKER_BENCH_THREADS ?? '1';
const HOLDER = { surname: 'ERIKSSON', givenNames: 'ANNA MARIA', dateOfBirth: '1986-05-02', nationality: 'SWE', documentNumber: 'SE7730142' };

const progress = (what: string) => console.error(`[bench:worker-tier ${new Date().toISOString().slice(11, 19)}] ${what}`);

/** Peak resident memory of a process so far (VmHWM), in MB; 0 once it is gone. */
function peakRssMb(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** The direct children of a process (the embedded database runs in one the API forks). */
function childrenOf(pid: number): number[] {
  try {
    return fs
      .readdirSync(`/proc/${pid}/task`)
      .flatMap((t) => fs.readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim().split(/\s+/))
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** A live T1 session taken through the hosted API as the page does, up to (not including) the submit. */
async function captureUpToSubmit(server: TestServer, key: string, document: { bytes: Buffer; contentType: string }): Promise<PageSession> {
  const created = await http(server, 'POST', '/v1/verify/sessions', { key, json: { flow_id: 'default', tier: 'T1' } });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
  const page = await openPage(server, created.body);
  for (const r of [
    await pageCall(server, page, 'POST', 'start'),
    await upload(server, page, { class: 'id_document_image', side: 'data_page' }, document.bytes, document.contentType),
    await upload(server, page, { class: 'selfie_image' }, packageImage('franck_04000.jpg').bytes, 'image/jpeg'),
  ]) {
    if (![200, 201].includes(r.status)) throw new Error(`capture: ${r.status} ${r.text}`);
  }
  return page;
}

/** Submits every page at once; resolves with the seconds from the first submit until every session is decided. */
async function decideAll(server: TestServer, key: string, pages: PageSession[]): Promise<number> {
  const t0 = performance.now();
  const submitted = await Promise.all(pages.map((p) => pageCall(server, p, 'POST', 'submit')));
  const refused = submitted.find((r) => r.status !== 200);
  if (refused) throw new Error(`submit: ${refused.status} ${refused.text}`);
  let waiting = pages.map((p) => p.id);
  while (waiting.length) {
    const still: string[] = [];
    for (const id of waiting) {
      const s = (await http(server, 'GET', `/v1/verify/sessions/${id}`, { key })).body;
      if (['created', 'in_progress', 'processing'].includes(s?.status)) still.push(id);
      else if (s?.status !== 'success') throw new Error(`session ${id} ended ${s?.status}: ${JSON.stringify(s?.result?.checks)}`);
    }
    waiting = still;
    if (waiting.length) await new Promise((r) => setTimeout(r, 250));
  }
  return (performance.now() - t0) / 1000;
}

type Layout = { name: string; perSecond: number; seconds: number; cpu: { process: string; seconds: number; idlePerSecond: number; peakRssMb: number }[] };

/** How long each layout sits idle before the submit, to measure what its processes spend doing nothing (polling the job queue). */
const IDLE_SECONDS = 10;

async function measure(name: string, api: TestServer, workers: WorkerProcess[], document: { bytes: Buffer; contentType: string }): Promise<Layout> {
  const { live_api_key: key } = await createTenant(api, `bench-${name.replace(/\W+/g, '-')}`);
  progress(`${name}: warm-up`);
  await decideAll(api, key, [await captureUpToSubmit(api, key, document), await captureUpToSubmit(api, key, document)]);
  progress(`${name}: capturing ${SESSIONS} sessions`);
  const pages: PageSession[] = [];
  for (let i = 0; i < SESSIONS; i++) pages.push(await captureUpToSubmit(api, key, document));
  const processes = [
    { process: 'API', pid: api.proc.pid! },
    ...childrenOf(api.proc.pid!).map((pid) => ({ process: 'embedded database', pid })),
    ...workers.map((w, i) => ({ process: `worker ${i + 1}`, pid: w.pid })),
  ];
  const idleFrom = processes.map((p) => cpuSeconds(p.pid));
  await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
  const idlePerSecond = processes.map((p, i) => (cpuSeconds(p.pid) - idleFrom[i]) / IDLE_SECONDS);
  const before = processes.map((p) => cpuSeconds(p.pid));
  progress(`${name}: submitting ${SESSIONS} sessions at once`);
  const seconds = await decideAll(api, key, pages);
  const cpu = processes.map((p, i) => ({ process: p.process, seconds: cpuSeconds(p.pid) - before[i], idlePerSecond: idlePerSecond[i], peakRssMb: peakRssMb(p.pid) }));
  return { name, perSecond: SESSIONS / seconds, seconds, cpu };
}

async function main(): Promise<void> {
  const env = testEnv({ RATE_LIMIT_ENABLED: 'false' });
  const document = await passportPhoto(passportFields(HOLDER));
  const layouts: Layout[] = [];

  progress('one process (the default)');
  const single = await startServer(env);
  try {
    layouts.push(await measure('one process', single, [], document));
  } finally {
    await single.stop();
  }

  progress('one API instance + two workers');
  const api = await startServer({ ...env, WORKER_ENABLED: 'false', CHECK_WORKERS: '0' });
  const workers: WorkerProcess[] = [];
  try {
    workers.push(...(await Promise.all([startWorker({ ...api.env, CHECK_WORKERS: THREADS }), startWorker({ ...api.env, CHECK_WORKERS: THREADS })])));
    layouts.push(await measure('API + 2 workers', api, workers, document));
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await api.stop();
    if (!env.DATABASE_URL) fs.rmSync(env.DATA_DIR!, { recursive: true, force: true });
  }

  const cores = os.availableParallelism();
  console.log(`\nLive T1 decisions, ${SESSIONS} sessions submitted at once, ${env.DATABASE_URL ? 'PostgreSQL server' : 'embedded PostgreSQL'}, ${cores} cores (load average before: ${os.loadavg()[0].toFixed(1)}):`);
  // CPU seconds per session do not depend on what else the machine runs; cores / that is the rate with every core ours.
  // What idle processes spend (polling) grows with the wall time, which the neighbours stretch: it is shown apart.
  console.log('| layout | sessions/s | seconds | CPU s per process (idle CPU %, peak RSS MB) | CPU use of the cores | CPU s per session | of it idle polling | sessions/s with all cores |');
  console.log('|---|---|---|---|---|---|---|---|');
  const perSession = layouts.map((l) => l.cpu.reduce((a, c) => a + c.seconds, 0) / SESSIONS);
  layouts.forEach((l, i) => {
    const total = perSession[i] * SESSIONS;
    const idle = l.cpu.reduce((a, c) => a + c.idlePerSecond, 0) * l.seconds;
    const per = l.cpu.map((c) => `${c.process} ${c.seconds.toFixed(1)} (${(c.idlePerSecond * 100).toFixed(1)}%, ${c.peakRssMb.toFixed(0)})`).join(', ');
    console.log(
      `| ${l.name} | ${l.perSecond.toFixed(3)} | ${l.seconds.toFixed(1)} | ${per} | ${((total / (l.seconds * cores)) * 100).toFixed(0)}% | ${perSession[i].toFixed(2)} | ${(idle / SESSIONS).toFixed(2)} | ${(cores / perSession[i]).toFixed(2)} |`,
    );
  });
  console.log(`\nAPI + 2 workers / one process: ${(layouts[1].perSecond / layouts[0].perSecond).toFixed(2)}x measured, ${(perSession[0] / perSession[1]).toFixed(2)}x in CPU per session (goal: at least 1.6x)`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
