import { execFileSync } from 'node:child_process';
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { encrypting } from '../src/vault/evidence-vault';
import { atMinimumRate } from '../src/vault/minimum-rate';
import { measuring } from '../src/net/measuring-stream';
import { median } from './bench-support';

/**
 * What the upload's chain of streams costs by itself (issue 44 goal 1): the same 5 MiB bodies, in the
 * 64 KiB chunks a socket hands on, through
 * - `service`: the chain as shipped: the request's iterator, `atMinimumRate`, the vault's `encrypting`
 *   generator (size, type sniff, SHA-256 of the clear bytes, AES-256-GCM) handed as it is to the fs
 *   store's pipeline, the `measuring` Transform (SHA-256 of the ciphertext) and a writable sink;
 * - `readable-from`: the same with the generator made a stream first (`Readable.from`), as before 2026-12-02;
 * - `one-transform`: the ceiling's shape (bench/hosted-ceiling-server.ts): one Transform doing the same
 *   hashing and encryption, into the same sink.
 * No sockets, files or database: the difference is the chain's own CPU. Each measurement runs in a
 * process of its own (garbage one variant leaves would be collected in another's time), the variants
 * in turn, UPLOAD_CHAIN_ROUNDS (5) times; each reports CPU per MiB (user + system) over
 * UPLOAD_CHAIN_BODIES (120) bodies after 10 of warm-up.
 */
const CHUNK = 64 * 1024;
const CHUNKS = 80;
const ROUNDS = Number(process.env.UPLOAD_CHAIN_ROUNDS ?? 5);
const BODIES = Number(process.env.UPLOAD_CHAIN_BODIES ?? 120);
const KEY = randomBytes(32);
// A JPEG's first bytes, so the vault's type sniff passes.
const chunks = Array.from({ length: CHUNKS }, (_, i) => (i === 0 ? Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(CHUNK - 4)]) : randomBytes(CHUNK)));

/** A body arriving a chunk per turn of the event loop, each chunk a buffer of its own, as a socket's are. */
function body(): Readable {
  let i = 0;
  return new Readable({
    read() {
      setImmediate(() => this.push(i < CHUNKS ? Buffer.from(chunks[i++]) : null));
    },
  });
}

/** Takes what it is given a turn later, with the fs store's 256 KiB buffer. */
const sink = () =>
  new Writable({
    highWaterMark: 256 * 1024,
    write: (_c, _e, done) => setImmediate(done),
    writev: (_cs, done) => setImmediate(done),
  });

function serviceChain(asStream: boolean): () => Promise<void> {
  return async () => {
    const cipher = createCipheriv('aes-256-gcm', KEY, randomBytes(12));
    const req = body();
    const ciphertext = encrypting({ body: atMinimumRate(req.iterator({ destroyOnReturn: false })), maxBytes: 10 * 1024 * 1024, class: 'id_document_image' }, 'image/jpeg', cipher, createHash('sha256'), { size: 0 });
    const measured = measuring();
    await pipeline(asStream ? Readable.from(ciphertext, { objectMode: false }) : ciphertext, measured.stream, sink());
    measured.sha256();
  };
}

async function oneTransform(): Promise<void> {
  const clear = createHash('sha256');
  const cipher = createCipheriv('aes-256-gcm', KEY, randomBytes(12));
  const addressed = createHash('sha256');
  const encrypt = new Transform({
    transform(chunk: Buffer, _enc, done) {
      clear.update(chunk);
      const out = cipher.update(chunk);
      addressed.update(out);
      done(null, out);
    },
    flush(done) {
      const out = cipher.final();
      addressed.update(out);
      done(null, out);
    },
  });
  await pipeline(body(), encrypt, sink());
}

async function cpuPerMiB(run: () => Promise<void>): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < BODIES; i++) await run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / ((BODIES * CHUNKS * CHUNK) / 2 ** 20);
}

const VARIANTS: Record<string, () => Promise<void>> = { service: serviceChain(false), 'readable-from': serviceChain(true), 'one-transform': oneTransform };

/** One variant in this process: its CPU per MiB, printed for the parent. */
async function measureOne(name: string): Promise<void> {
  const run = VARIANTS[name];
  for (let i = 0; i < 10; i++) await run();
  console.log(String(await cpuPerMiB(run)));
}

function main(): void {
  const names = Object.keys(VARIANTS);
  const rows: Record<string, number>[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const row: Record<string, number> = {};
    // The order turns each round, so no variant always runs first.
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + r) % names.length];
      row[name] = Number(execFileSync(process.execPath, [__filename], { env: { ...process.env, UPLOAD_CHAIN_VARIANT: name } }).toString().trim());
    }
    rows.push(row);
  }
  console.log(`\nbench:upload-chain: ${BODIES} bodies of ${(CHUNKS * CHUNK) / 2 ** 20} MiB per measurement, ${ROUNDS} rounds, each variant in a process of its own\n`);
  console.log(`| round | ${names.map((n) => `${n} CPU ms/MiB`).join(' | ')} | service / one-transform | readable-from / one-transform |`);
  console.log(`|---|${names.map(() => '---|').join('')}---|---|`);
  rows.forEach((x, i) => console.log(`| ${i + 1} | ${names.map((n) => x[n].toFixed(2)).join(' | ')} | ${(x.service / x['one-transform']).toFixed(2)}x | ${(x['readable-from'] / x['one-transform']).toFixed(2)}x |`));
  const med = (n: string) => median(rows.map((x) => x[n]));
  console.log(`\nMedians: ${names.map((n) => `${n} ${med(n).toFixed(2)}`).join(', ')} ms/MiB; service / one-transform ${median(rows.map((x) => x.service / x['one-transform'])).toFixed(2)}x, readable-from / one-transform ${median(rows.map((x) => x['readable-from'] / x['one-transform'])).toFixed(2)}x`);
}

if (process.env.UPLOAD_CHAIN_VARIANT) void measureOne(process.env.UPLOAD_CHAIN_VARIANT);
else main();
