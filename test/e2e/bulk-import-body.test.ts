import fs from 'node:fs';
import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import type { Client } from 'pg';
import { dbClient } from '../helpers/hosted-client';
import { createTenant, eventually, http, startServer, testEnv, type Tenant, type TestServer } from '../helpers/test-server';

/**
 * A bulk-import body read as a stream (docs/api-behaviour.md, "Bulk import"; docs/security.md,
 * finding 2): record 10,001 ends the request with `too_many_records` before anything is stored, the
 * server's memory stays flat and its event loop free while a 25 MiB body arrives, and each bad line
 * (a NUL, bytes that are not UTF-8, an unpaired surrogate, a line over 1 MiB) is that line's rejection.
 */

const MiB = 1024 * 1024;
const LIMIT = 25 * MiB;

let server: TestServer;
let acme: Tenant;
let db: Client;

beforeAll(async () => {
  server = await startServer(testEnv({ RATE_LIMIT_ENABLED: 'false' }));
  acme = await createTenant(server, 'Acme Body');
  db = await dbClient(server);
}); // an embedded database starting on a loaded machine
afterAll(async () => {
  await db?.end();
  await server?.stop();
});

type Answer = { status: number; body: Record<string, any>; text: string };

/**
 * POSTs `chunks` to the bulk import with node's own client: with `content-length` when `length` is
 * given, chunked otherwise. The answer is read whatever point of the upload it comes at.
 */
function post(chunks: Iterable<Buffer> | Buffer, opts: { type?: string; length?: number; headers?: Record<string, string> } = {}): Promise<Answer> {
  const url = new URL('/v1/admin/bulk-import', server.url);
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      signal: AbortSignal.timeout(150_000), // a hang bound only
      headers: {
        authorization: `Bearer ${acme.test_api_key}`,
        'content-type': opts.type ?? 'application/x-ndjson',
        ...(opts.length !== undefined ? { 'content-length': String(opts.length) } : {}),
        ...opts.headers,
      },
    });
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        let body: Record<string, any> = {};
        try {
          body = JSON.parse(text) as Record<string, any>;
        } catch {
          /* not JSON */
        }
        resolve({ status: res.statusCode ?? 0, body, text });
      });
    });
    req.on('error', reject);
    const list = Buffer.isBuffer(chunks) ? [chunks] : chunks;
    const iterator = list[Symbol.iterator]();
    const more = (): void => {
      for (;;) {
        const next = iterator.next();
        if (next.done) return void req.end();
        if (!req.write(next.value)) return void req.once('drain', more);
      }
    };
    more();
  });
}

/** `total` bytes made of copies of `unit`, handed out 64 KiB at a time (never held whole). */
function* repeated(unit: string, total: number): Generator<Buffer> {
  const block = Buffer.from(unit.repeat(Math.floor((64 * 1024) / unit.length)));
  let left = total;
  while (left > 0) {
    const n = Math.min(left, block.length);
    yield n === block.length ? block : block.subarray(0, n);
    left -= n;
  }
}

/** The process's resident memory in MB; Infinity once it is gone (a server that died of its memory). */
function rssMb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Infinity) / 1024;
  } catch {
    return Infinity;
  }
}

/**
 * Runs `upload` while sampling the server's RSS every 20 ms and asking `/healthz` one after another;
 * returns the upload's answer, the RSS growth and every probe's latency (each probe must answer 200).
 */
async function whileWatching(upload: () => Promise<Answer>): Promise<{ answer: Answer; growthMb: number; probesMs: number[]; idleMs: number[] }> {
  const pid = server.proc.pid!;
  // The same probes with nothing else going on: on a shared machine their latency is the load's, not the upload's.
  const idleMs: number[] = [];
  for (let i = 0; i < 10; i++) {
    const t = performance.now();
    await (await fetch(`${server.url}/healthz`)).arrayBuffer();
    idleMs.push(performance.now() - t);
  }
  const before = rssMb(pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 20);
  let done = false;
  const probesMs: number[] = [];
  const probing = (async () => {
    while (!done) {
      const t = performance.now();
      const r = await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(60_000) }); // a hang bound only
      await r.arrayBuffer();
      expect(r.status).toBe(200);
      probesMs.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  try {
    const answer = await upload();
    return { answer, growthMb: peak - before, probesMs, idleMs };
  } finally {
    done = true;
    clearInterval(sampler);
    await probing;
  }
}

const p99 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.99) - 1)];

/** The measurement the goal names (docs/security.md, finding 2), printed for the record, never asserted: the machine is shared. */
function report(what: string, w: { growthMb: number; probesMs: number[]; idleMs: number[] }): void {
  console.info(`${what}: server RSS growth ${w.growthMb.toFixed(1)} MB; /healthz during it: ${w.probesMs.length} probes, p99 ${p99(w.probesMs).toFixed(0)} ms, max ${Math.max(...w.probesMs).toFixed(0)} ms; idle before it: p99 ${p99(w.idleMs).toFixed(0)} ms`);
}

async function storedImports(): Promise<number> {
  const [r] = (await db.query(`SELECT count(*)::int AS n FROM bulk_imports WHERE tenant_id = $1`, [acme.tenant_id])).rows as { n: number }[];
  return r.n;
}

async function sessionsOfAcme(): Promise<number> {
  const [r] = (await db.query(`SELECT count(*)::int AS n FROM sessions WHERE tenant_id = $1`, [acme.tenant_id])).rows as { n: number }[];
  return r.n;
}

describe('a 25 MiB bulk body', () => {
  it('refuses NDJSON at record 10,001 with too_many_records naming the line, stores nothing, and the server stays small and answers /healthz throughout', async () => {
    const importsBefore = await storedImports();
    const watched = await whileWatching(() => post(repeated('1\n', LIMIT), { length: LIMIT }));
    const { answer, growthMb, probesMs } = watched;
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'too_many_records', message: expect.stringContaining('line 10001') });
    expect(growthMb).toBeLessThan(100);
    expect(probesMs.length).toBeGreaterThan(0);
    report('25 MiB of "1\\n", refused', watched);
    expect(await storedImports()).toBe(importsBefore);
    expect(await sessionsOfAcme()).toBe(0);
  });

  it('refuses the JSON shape at record 10,001 the same way', async () => {
    const head = '{"records": [';
    const body = (function* () {
      yield Buffer.from(head);
      yield* repeated('1,', LIMIT - head.length - 3);
      yield Buffer.from('1]}');
    })();
    const watched = await whileWatching(() => post(body, { type: 'application/json', length: LIMIT }));
    const { answer, growthMb, probesMs } = watched;
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'too_many_records', message: expect.stringContaining('line 10001') });
    expect(growthMb).toBeLessThan(100);
    expect(probesMs.length).toBeGreaterThan(0);
    report('25 MiB of {"records": [1,1,...]}, refused', watched);
    expect(await sessionsOfAcme()).toBe(0);
  });

  it('answers 413 to one byte more, declared or sent chunked, and to a gzip body that inflates past it', async () => {
    const declared = await post(repeated('\n', LIMIT + 1), { length: LIMIT + 1 });
    expect(declared.status).toBe(413);
    expect(declared.body.error.code).toBe('payload_too_large');
    const chunked = await post(repeated('\n', LIMIT + 1));
    expect(chunked.status).toBe(413);
    expect(chunked.body.error.code).toBe('payload_too_large');
    const bomb = gzipSync(Buffer.alloc(64 * MiB, '\n'));
    expect(bomb.length).toBeLessThan(MiB);
    const inflated = await post(bomb, { length: bomb.length, headers: { 'content-encoding': 'gzip' } });
    expect(inflated.status).toBe(413);
    expect(await sessionsOfAcme()).toBe(0);
  });
});

describe('what a bulk body may hold', () => {
  it('takes 10,000 valid records, as NDJSON filling 25 MiB and as JSON', async () => {
    const note = 'n'.repeat(2_500);
    const lines = Array.from({ length: 10_000 }, (_, i) => Buffer.from(`${JSON.stringify({ flow_id: 'default', tier: 'T0', reference_id: `ten-k-${i}`, metadata: { note } })}\n`));
    const length = lines.reduce((n, l) => n + l.length, 0);
    expect(length).toBeLessThanOrEqual(LIMIT);
    expect(length).toBeGreaterThan(24 * MiB);
    const watched = await whileWatching(() => post(lines, { length }));
    expect(watched.answer.status).toBe(202);
    expect(watched.answer.body).toMatchObject({ object: 'bulk_import', total: 10_000, rejected: 0 });
    report(`${(length / MiB).toFixed(1)} MiB of 10,000 records, accepted`, watched);
    // The same references again, as JSON: accepted, and found to be duplicates once the first import has made them.
    const records = Array.from({ length: 10_000 }, (_, i) => ({ flow_id: 'default', tier: 'T0', reference_id: `ten-k-${i}` }));
    const json = await http(server, 'POST', '/v1/admin/bulk-import', { key: acme.test_api_key, json: { records } });
    expect(json.status).toBe(202);
    expect(json.body).toMatchObject({ total: 10_000, rejected: 0 });
    // A gzip body is read as it inflates.
    const zipped = gzipSync(Buffer.from(records.slice(0, 3).map((r) => JSON.stringify({ ...r, reference_id: `gz-${r.reference_id}` })).join('\n')));
    const gz = await post(zipped, { headers: { 'content-encoding': 'gzip' } });
    expect(gz.status).toBe(202);
    expect(gz.body.total).toBe(3);
  });

  it('rejects each line with a NUL, bytes that are not UTF-8, an unpaired surrogate or more than 1 MiB, and creates the others', async () => {
    const valid = (ref: string) => Buffer.from(JSON.stringify({ flow_id: 'default', tier: 'T0', reference_id: ref }));
    const lines: Buffer[] = [
      valid('lines-1'),
      Buffer.concat([Buffer.from('{"flow_id":"default","tier":"T0","reference_id":"a'), Buffer.from([0]), Buffer.from('b"}')]), // 2: a NUL byte
      Buffer.from('{"flow_id":"default","tier":"T0","reference_id":"a\\u0000b"}'), // 3: an escaped NUL
      Buffer.concat([Buffer.from('{"flow_id":"default","tier":"T0","reference_id":"caf'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]), // 4: not UTF-8
      Buffer.from('{"flow_id":"default","tier":"T0","metadata":{"note":"\\ud800"}}'), // 5: an unpaired surrogate escape
      Buffer.concat([Buffer.from('{"flow_id":"default","tier":"T0","reference_id":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]), // 6: a surrogate encoded as UTF-8
      Buffer.from(JSON.stringify({ flow_id: 'default', tier: 'T0', metadata: { note: 'x'.repeat(MiB + 10) } })), // 7: over 1 MiB
      Buffer.from('{"flow_id":"default","tier":"T0","\\u0000":1}'), // 8: a NUL in a key
      valid('lines-9'),
    ];
    const r = await post(Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')])));
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ total: 9, rejected: 7 });
    const done = await eventually(async () => {
      const g = await http(server, 'GET', `/v1/admin/bulk-import/${r.body.id}`, { key: acme.test_api_key });
      return g.body.status === 'completed' ? g.body : undefined;
    }, 60_000, 200);
    expect(done).toMatchObject({ created: 2, rejected: 7 });
    const results = (await (await fetch(`${server.url}/v1/admin/bulk-import/${r.body.id}/results`, { headers: { authorization: `Bearer ${acme.test_api_key}` } })).text())
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { line: number; outcome: string; reference_id: string | null; error?: { code: string; message: string } });
    expect(results.map((l) => [l.line, l.outcome])).toEqual([
      [1, 'created'],
      [2, 'rejected'],
      [3, 'rejected'],
      [4, 'rejected'],
      [5, 'rejected'],
      [6, 'rejected'],
      [7, 'rejected'],
      [8, 'rejected'],
      [9, 'created'],
    ]);
    const message = (line: number) => results.find((l) => l.line === line)!.error!.message;
    expect(message(2)).toMatch(/NUL/);
    expect(message(3)).toMatch(/NUL character or an unpaired UTF-16 surrogate/);
    expect(message(4)).toMatch(/not UTF-8/);
    expect(message(5)).toMatch(/unpaired UTF-16 surrogate/);
    expect(message(6)).toMatch(/not UTF-8/);
    expect(message(7)).toMatch(/1 MiB/);
    expect(message(8)).toMatch(/NUL character/);
    for (const l of results.filter((x) => x.outcome === 'rejected')) expect(l.reference_id).toBeNull();
  });

  it('rejects a JSON-shape record with a NUL or an unpaired surrogate and creates the others; refuses a JSON body that is not UTF-8 or nests too deep', async () => {
    const body = '{"records": [{"flow_id":"default","tier":"T0","reference_id":"js-1"}, {"flow_id":"default","tier":"T0","reference_id":"x\\u0000"}, {"flow_id":"default","tier":"T0","reference_id":"\\udc00"}, {"flow_id":"default","tier":"T0","reference_id":"js-4"}]}';
    const r = await post(Buffer.from(body), { type: 'application/json' });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ total: 4, rejected: 2 });

    const notUtf8 = await post(Buffer.concat([Buffer.from('{"records": [{"flow_id":"default","tier":"T0","reference_id":"'), Buffer.from([0xff]), Buffer.from('"}]}')]), { type: 'application/json' });
    expect(notUtf8.status).toBe(400);
    expect(notUtf8.body.error).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('UTF-8') });

    const deep = await post(Buffer.from(`{"records": [${'['.repeat(100_000)}`), { type: 'application/json' });
    expect(deep.status).toBe(400);
    expect(deep.body.error.code).toBe('invalid_request');

    const huge = await post(Buffer.from(`{"records": [{"flow_id":"default","tier":"T0","metadata":{"note":"${'x'.repeat(2 * MiB)}"}}]}`), { type: 'application/json' });
    expect(huge.status).toBe(400);
    expect(huge.body.error.message).toMatch(/1 MiB/);

    const other = await post(Buffer.from('{"records": [], "extra": 1}'), { type: 'application/json' });
    expect(other.status).toBe(400);
    expect(other.body.error.message).toContain('extra');
    const notArray = await post(Buffer.from('{"records": {"a": 1}}'), { type: 'application/json' });
    expect(notArray.status).toBe(400);
    expect(notArray.body.error.message).toContain('records must be an array');
  });
});
