import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { Pool } from 'pg';
import { cliJson, startProcess, Started } from './bench-support';
import { artifactQuery, closeBodySockets, cpuHeader, cpuRow, evidenceUrlsAfterSubmit, getBody, hashesOf, jpeg, MIB, openPage, OpenedPage, postImage, progress, rssSampler, summary, SUMMARY_HEADER, serverEnvOf, summaryRow, tenantApi, timedWith } from './hosted-flow';
import { startLocalS3Process } from '../test/helpers/local-s3';
import { s3ClientFor } from '../src/vault/s3-blob-store';
import { ENGINES_OFF } from '../test/helpers/test-server';

/**
 * npm run bench:hosted-s3 — issue 30's S3 goals measured through the hosted API, as a tenant's users
 * meet them: the built server started as `npm start` starts it with its vault on an S3-compatible
 * bucket (`VAULT_STORE=s3`, s3rver in its own process), against raw SDK calls to the same server in
 * the same run.
 *
 * 1. 200 images of 5 MiB uploaded at once through the hosted API (100 live T1 sessions, a passport data
 *    page and a selfie each), against 200 raw `PutObject`s of the same clear bytes at once, with the
 *    client the vault builds (`s3ClientFor`). The server's peak RSS is sampled meanwhile.
 * 2. The evidence URLs of those sessions downloaded 16 at a time, against raw `GetObject`s of the very
 *    objects the vault stored (their keys from the artifacts table), 16 at a time, each read to the end.
 *
 * Each phase also reports the CPU that the client (this process), the server and s3rver spent per MiB,
 * and how many of the machine's cores they kept busy together. Bytes are counted, not hashed, on both sides while timed; the API's answers are checked against the
 * uploaded bytes afterwards. Env: DATABASE_URL (else the embedded database), HOSTED_BENCH_IMAGES (200),
 * HOSTED_BENCH_MIB (5), HOSTED_BENCH_SERVER_NODE_OPTIONS (NODE_OPTIONS for the server alone, e.g. to profile it).
 */
const IMAGES = Number(process.env.HOSTED_BENCH_IMAGES ?? 200);
const SIZE = Number(process.env.HOSTED_BENCH_MIB ?? 5) * MIB;
const DOWNLOAD_CONCURRENCY = 16;
const say = (what: string) => progress('bench:hosted-s3', what);

/** Reads a body to its end, keeping nothing; its length. */
async function drain(body: AsyncIterable<Uint8Array>): Promise<number> {
  let n = 0;
  for await (const chunk of body) n += chunk.length;
  return n;
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-hosted-s3-'));
  const s3 = await startLocalS3Process('vault');
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: s3.env.AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: s3.env.AWS_SECRET_ACCESS_KEY });
  const env: NodeJS.ProcessEnv = { DATA_DIR: dataDir, RATE_LIMIT_ENABLED: 'false', LOG_LEVEL: 'warn', ...ENGINES_OFF, ...s3.env, VAULT_STORE: 's3' };
  if (process.env.DATABASE_URL) env.DATABASE_URL = process.env.DATABASE_URL;
  const target = process.env.DATABASE_URL ? 'PostgreSQL server' : 'embedded PostgreSQL (PGlite)';
  // The raw side's client is the one the vault builds: same sockets, retries and checksums.
  const client = s3ClientFor({ bucket: s3.bucket, endpoint: s3.endpoint, prefix: undefined, forcePathStyle: true, region: 'us-east-1' });
  let server: Started | null = null;
  let db: Pool | null = null;
  try {
    server = await startProcess('app/main.js', serverEnvOf(env));
    const base = server.url;
    const tenant = cliJson(env, ['tenant', 'create', '--name', `bench-hosted-s3-${Date.now()}`]) as { live_api_key: string };
    const api = tenantApi(base, tenant.live_api_key);
    db = new Pool(process.env.DATABASE_URL ? { connectionString: process.env.DATABASE_URL, max: 4 } : { host: dataDir, port: 5432, user: 'postgres', database: 'postgres', max: 4 });

    say('sessions');
    const pages: OpenedPage[] = [];
    for (let i = 0; i < IMAGES / 2; i++) pages.push(await openPage(base, api));
    const bodies = Array.from({ length: IMAGES }, (_, i) => jpeg(i, SIZE));
    const sha = bodies.map((b) => createHash('sha256').update(b).digest('hex'));

    say('warm-up: one raw PutObject and one upload through the API');
    await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'warm/raw', Body: bodies[0] }));
    const warm = await openPage(base, api);
    await postImage(`${base}/v1/hosted/sessions/${warm.id}/artifacts?class=selfie_image`, `Bearer ${warm.credential}`, bodies[0]);

    // Every process of the bench shares the two cores: what each spends per MiB says whether they are the limit.
    const pids = { client: process.pid, server: server.proc.pid!, s3rver: s3.pid! };

    say('raw PutObject baseline');
    const rawPut = await timedWith(pids, bodies, IMAGES, async (b, i) => {
      await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: `raw/${i}`, Body: b }));
      return b.length;
    });

    say('uploads through the API');
    const rss = rssSampler(server.proc.pid!);
    const rssBefore = rss.now();
    const ids: string[] = new Array(IMAGES);
    const apiUp = await timedWith(pids, bodies, IMAGES, async (b, i) => {
      const page = pages[i >> 1];
      const r = await postImage(`${base}/v1/hosted/sessions/${page.id}/artifacts?${artifactQuery(i)}`, `Bearer ${page.credential}`, b);
      if (r.sha256 !== sha[i]) throw new Error('the stored sha256 differs from the bytes sent');
      ids[i] = r.id;
      return b.length;
    });
    rss.stop();

    say('submit and wait for the checks');
    const urls = await evidenceUrlsAfterSubmit(base, api, pages);
    const keys = ((await db.query('SELECT blob_key FROM artifacts WHERE id = ANY($1) AND blob_key IS NOT NULL', [ids])).rows as { blob_key: string }[]).map((r) => r.blob_key);
    if (keys.length !== IMAGES) throw new Error(`${keys.length} of ${IMAGES} artifacts name an object`);

    say('evidence downloads');
    const apiDown = await timedWith(pids, urls, DOWNLOAD_CONCURRENCY, (u) => getBody(u));
    say('raw GetObject baseline');
    const rawGet = await timedWith(pids, keys, DOWNLOAD_CONCURRENCY, async (key) => {
      const r = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
      if (!(r.Body instanceof Readable)) throw new Error('GetObject answered without a Node stream');
      return drain(r.Body);
    });
    // Untimed: the evidence URLs answer the bytes that were uploaded.
    if (!(await hashesOf(urls.slice(0, 8))).every((h) => sha.includes(h))) throw new Error('an evidence URL did not return the bytes uploaded');

    const up = [summary('raw PutObject of the clear bytes (baseline)', rawPut.timings, rawPut.wallMs), summary('POST /v1/hosted/.../artifacts, vault on S3', apiUp.timings, apiUp.wallMs, apiUp.cpu.server)];
    const down = [summary('raw GetObject of the stored objects (baseline)', rawGet.timings, rawGet.wallMs), summary('GET /v1/evidence/... (evidence URL), vault on S3', apiDown.timings, apiDown.wallMs, apiDown.cpu.server)];
    console.log(`\nbench:hosted-s3 on ${target}, s3rver in its own process, ${new Date().toISOString()}\n`);
    console.log(`Uploads: ${IMAGES} images of ${SIZE / MIB} MiB, all at once (${pages.length} live T1 sessions, document + selfie)\n`);
    console.log(SUMMARY_HEADER);
    for (const u of up) console.log(summaryRow(u, up[0]));
    console.log(`\n${cpuHeader(Object.keys(pids))}\n${cpuRow(up[0], rawPut.cpu)}\n${cpuRow(up[1], apiUp.cpu)}`);
    console.log(`\nServer RSS: ${(rssBefore / MIB).toFixed(0)} MiB before the uploads, peak ${(rss.peak() / MIB).toFixed(0)} MiB during (+${((rss.peak() - rssBefore) / MIB).toFixed(0)} MiB for ${((IMAGES * SIZE) / MIB).toFixed(0)} MiB uploaded)\n`);
    console.log(`Downloads: the ${urls.length} evidence URLs, ${DOWNLOAD_CONCURRENCY} at a time\n`);
    console.log(SUMMARY_HEADER);
    for (const d of down) console.log(summaryRow(d, down[0]));
    console.log(`\n${cpuHeader(Object.keys(pids))}\n${cpuRow(down[0], rawGet.cpu)}\n${cpuRow(down[1], apiDown.cpu)}`);
    const upRatio = up[1].mibPerS / up[0].mibPerS;
    const downRatio = down[1].mibPerS / down[0].mibPerS;
    console.log(`\nuploads: API/raw = ${upRatio.toFixed(2)}x (goal >= 0.8x: ${upRatio >= 0.8 ? 'met' : 'NOT met'})`);
    console.log(`downloads: API/raw = ${downRatio.toFixed(2)}x (goal >= 0.8x: ${downRatio >= 0.8 ? 'met' : 'NOT met'})`);
  } finally {
    client.destroy();
    closeBodySockets();
    await db?.end();
    await server?.stop();
    await s3.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
