import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pumpReleasing } from '../src/vault/buffer-release';
import { throughStep } from '../src/vault/chunk-step';

/**
 * The ceiling of bench:hosted (started by bench/hosted.bench.ts in a child process of its own): a
 * bare node:http server doing only the work an upload or a download cannot avoid, so the bench can
 * tell what one Node process can do at all on this machine, and how much of the gap to the raw
 * file operations is the service's own.
 *
 * - `POST /upload`: the body hashed (SHA-256 of the clear bytes), encrypted (AES-256-GCM), the
 *   ciphertext hashed for its content address, streamed to a temporary file with the fs store's
 *   256 KiB buffer, fsynced, renamed into place and its directory fsynced, as FsBlobStore does.
 *   Answers the clear bytes' SHA-256.
 * - `GET /download?file=&key=&iv=&tag=&aad=`: the blob file streamed through the AES-256-GCM
 *   decipher the vault uses (key, IV, tag and associated data given in hex/utf8) to the response,
 *   with the fs store's 512 KiB reads (FsBlobStore READ_CHUNK: the same read size on both sides).
 *
 * No database, no authentication, no audit, no express: what is left is sockets, crypto and files.
 * With CEILING_RELEASE=1 a download frees each read and decipher buffer once used, as the service does
 * (`pumpReleasing`, `throughStep`'s `releaseSourceChunks`); by default it pipes them, as Node's streams do.
 * Env: PORT, CEILING_DIR (where uploads are written), CEILING_RELEASE.
 */
const DIR = process.env.CEILING_DIR!;
const RELEASE = process.env.CEILING_RELEASE === '1';
const UPLOAD_KEY = randomBytes(32);

async function upload(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const clear = createHash('sha256');
  const cipher = createCipheriv('aes-256-gcm', UPLOAD_KEY, randomBytes(12));
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
  const tmp = path.join(DIR, 'tmp', randomBytes(16).toString('hex'));
  await pipeline(req, encrypt, createWriteStream(tmp, { flags: 'wx', mode: 0o600, flush: true, highWaterMark: 256 * 1024 }));
  const key = addressed.digest('hex');
  const target = path.join(DIR, 'blobs', key.slice(0, 2), key);
  await fs.mkdir(path.dirname(target), { recursive: true });
  await fs.rename(tmp, target);
  const dir = await fs.open(path.dirname(target), 'r');
  await dir.sync().finally(() => dir.close());
  res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ sha256: clear.digest('hex') }));
}

async function download(url: URL, res: http.ServerResponse): Promise<void> {
  const q = (name: string) => url.searchParams.get(name) ?? '';
  const decipher = createDecipheriv('aes-256-gcm', Buffer.from(q('key'), 'hex'), Buffer.from(q('iv'), 'hex'));
  decipher.setAAD(Buffer.from(q('aad'), 'utf8'));
  decipher.setAuthTag(Buffer.from(q('tag'), 'hex'));
  const file = q('file');
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String((await fs.stat(file)).size) });
  const read = createReadStream(file, { highWaterMark: 512 * 1024 });
  if (RELEASE) await pumpReleasing(throughStep(read, decipher, { releaseSourceChunks: true }), res);
  else await pipeline(read, decipher, res);
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://ceiling');
  const work = url.pathname === '/healthz' ? Promise.resolve(void res.end('ok')) : url.pathname === '/upload' ? upload(req, res) : download(url, res);
  work.catch((err: Error) => {
    if (!res.headersSent) res.writeHead(500).end(err.message);
    else res.destroy(err);
  });
});

void fs.mkdir(path.join(DIR, 'tmp'), { recursive: true }).then(() => server.listen(Number(process.env.PORT), '127.0.0.1'));
process.on('SIGTERM', () => process.exit(0));
