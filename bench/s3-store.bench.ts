/**
 * The vault's S3 back end against the raw SDK, on the same local S3-compatible server (s3rver, in
 * its own process) in the same run (issue 30's goal: at least 0.8x):
 * - uploads: N concurrent S3BlobStore.put of a 5 MiB body streamed through AES-256-GCM, as the
 *   vault stores an upload, against N concurrent raw PutObjects of the same clear bytes;
 * - downloads: N concurrent S3BlobStore.get read through the decipher, against raw GetObjects
 *   of objects of the same size read to the end.
 * Rounds alternate the two sides; the verdict is the median round. `npm run bench:s3`
 * (BENCH_S3_UPLOADS, BENCH_S3_MIB, BENCH_S3_ROUNDS).
 */
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { startLocalS3Process } from '../test/helpers/local-s3';
import { S3BlobStore, s3ClientFor } from '../src/vault/s3-blob-store';
import { median } from './bench-support';

const UPLOADS = Number(process.env.BENCH_S3_UPLOADS ?? 100);
const MIB = Number(process.env.BENCH_S3_MIB ?? 5);
const ROUNDS = Number(process.env.BENCH_S3_ROUNDS ?? 3);
const CHUNK = 64 * 1024;

const clear = randomBytes(MIB * 1024 * 1024);
const dataKey = randomBytes(32);

/** The clear bytes as a socket delivers an upload: 64 KiB chunks, pulled as the reader asks. */
function socketLike(bytes: Buffer): Readable {
  return Readable.from(
    (function* () {
      for (let i = 0; i < bytes.length; i += CHUNK) yield bytes.subarray(i, i + CHUNK);
    })(),
  );
}

/** Counts bytes and lets them go: a reader that keeps nothing. */
function discard(): { sink: Writable; bytes: () => number } {
  let n = 0;
  return {
    sink: new Writable({
      write(chunk: Buffer, _enc, done) {
        n += chunk.length;
        done();
      },
    }),
    bytes: () => n,
  };
}

async function timed(fn: () => Promise<unknown>): Promise<{ seconds: number; peakRssMiB: number }> {
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const t = process.hrtime.bigint();
  await fn();
  const seconds = Number(process.hrtime.bigint() - t) / 1e9;
  clearInterval(sampler);
  return { seconds, peakRssMiB: (peak - rssBefore) / 1024 / 1024 };
}

async function main(): Promise<void> {
  const s3 = await startLocalS3Process('bench');
  // Credentials the SDK's usual way, as a deployment gives them.
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: s3.env.AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: s3.env.AWS_SECRET_ACCESS_KEY });
  // One client for both sides: the same sockets, retries and checksums, so only the store's work differs.
  const client = s3ClientFor({ bucket: s3.bucket, endpoint: s3.endpoint, prefix: undefined, forcePathStyle: true, region: 'us-east-1' });
  const store = new S3BlobStore(client, { bucket: s3.bucket, prefix: 'store' });
  const ids = Array.from({ length: UPLOADS }, (_, i) => `art_bench${String(i).padStart(8, '0')}`);
  const rawKey = (id: string) => `raw/${id}`;
  const ivs = new Map<string, { iv: Buffer; tag: Buffer }>();

  const rawPut = () => Promise.all(ids.map((id) => client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: rawKey(id), Body: clear }))));
  const storePut = () =>
    Promise.all(
      ids.map(async (id) => {
        const iv = randomBytes(12);
        const cipher = createCipheriv('aes-256-gcm', dataKey, iv);
        cipher.setAAD(Buffer.from(id));
        const location = await store.put(id, socketLike(clear).pipe(cipher));
        if (location.sizeBytes !== clear.length) throw new Error(`stored ${location.sizeBytes} bytes of ${clear.length}`);
        ivs.set(id, { iv, tag: cipher.getAuthTag() });
      }),
    );
  const rawGet = () =>
    Promise.all(
      ids.map(async (id) => {
        const r = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: rawKey(id) }));
        if (!(r.Body instanceof Readable)) throw new Error('GetObject answered without a Node stream');
        const out = discard();
        await pipeline(r.Body, out.sink);
        if (out.bytes() !== clear.length) throw new Error('short raw read');
      }),
    );
  const storeGet = () =>
    Promise.all(
      ids.map(async (id) => {
        const body = await store.get(`store/${id}`);
        if (!body) throw new Error(`store/${id} is missing`);
        const { iv, tag } = ivs.get(id)!;
        const decipher = createDecipheriv('aes-256-gcm', dataKey, iv);
        decipher.setAAD(Buffer.from(id));
        decipher.setAuthTag(tag);
        const out = discard();
        await pipeline(body, decipher, out.sink);
        if (out.bytes() !== clear.length) throw new Error('short store read');
      }),
    );
  const dropAll = () => Promise.all(ids.flatMap((id) => [store.delete(`store/${id}`), client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: rawKey(id) }))]));

  const mibPerRun = (UPLOADS * clear.length) / 1024 / 1024;
  const rows: Record<'rawPut' | 'storePut' | 'rawGet' | 'storeGet', { seconds: number; peakRssMiB: number }[]> = { rawPut: [], storePut: [], rawGet: [], storeGet: [] };
  try {
    // One unmeasured pass warms the sockets, the JIT and the server's directories.
    await rawPut();
    await storePut();
    await dropAll();
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which side goes first, so neither always meets a warmer or fuller disk.
      const puts = round % 2 ? ([['storePut', storePut], ['rawPut', rawPut]] as const) : ([['rawPut', rawPut], ['storePut', storePut]] as const);
      for (const [name, fn] of puts) rows[name].push(await timed(fn));
      const gets = round % 2 ? ([['storeGet', storeGet], ['rawGet', rawGet]] as const) : ([['rawGet', rawGet], ['storeGet', storeGet]] as const);
      for (const [name, fn] of gets) rows[name].push(await timed(fn));
      await dropAll();
    }
  } finally {
    store.close();
    await s3.close();
  }

  const throughput = (xs: { seconds: number }[]) => mibPerRun / median(xs.map((x) => x.seconds));
  const peak = (xs: { peakRssMiB: number }[]) => Math.max(...xs.map((x) => x.peakRssMiB));
  console.log(`S3 store vs raw SDK: ${UPLOADS} concurrent objects of ${MIB} MiB, ${ROUNDS} rounds (median), s3rver in its own process\n`);
  console.log('| case | MiB/s (median) | seconds per round | client RSS growth, max (MiB) |');
  console.log('|---|---|---|---|');
  const label = { rawPut: 'raw PutObject (clear bytes, one buffer)', storePut: 'S3BlobStore.put (64 KiB chunks through AES-256-GCM)', rawGet: 'raw GetObject, read to the end', storeGet: 'S3BlobStore.get through the decipher' } as const;
  for (const name of ['rawPut', 'storePut', 'rawGet', 'storeGet'] as const) {
    console.log(`| ${label[name]} | ${throughput(rows[name]).toFixed(0)} | ${rows[name].map((r) => r.seconds.toFixed(2)).join(', ')} | ${peak(rows[name]).toFixed(0)} |`);
  }
  const up = throughput(rows.storePut) / throughput(rows.rawPut);
  const down = throughput(rows.storeGet) / throughput(rows.rawGet);
  console.log(`\nuploads: store/raw = ${up.toFixed(2)}x (goal >= 0.8x: ${up >= 0.8 ? 'met' : 'NOT met'})`);
  console.log(`downloads: store/raw = ${down.toFixed(2)}x (goal >= 0.8x: ${down >= 0.8 ? 'met' : 'NOT met'})`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
