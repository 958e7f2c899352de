import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, open as openFd } from 'node:fs';
import { promisify } from 'node:util';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { measuring } from '../net/measuring-stream';
import type { BlobLocation, BlobStore } from './blob-store';

const BLOB_KEY = /^[0-9a-f]{64}$/;
/** A temporary file left by a crash mid-write is listed (and swept) under this prefix. */
const TMP_PREFIX = 'tmp/';
const TMP_NAME = /^[0-9a-f]{32}$/;
/** Bytes per read of a blob: fewer, larger reads and socket writes per MiB sent (bench:hosted). */
const READ_CHUNK = 512 * 1024;

/**
 * The embedded blob store (issue 30): ciphertext files under `dir`, named by their SHA-256 in two
 * levels of fan-out (`blobs/ab/cd/abcd…`), so no directory grows past 65,536 entries per level.
 * A blob is streamed to `tmp/`, fsynced, renamed into place and its directory fsynced: a crash
 * leaves either no blob or a whole one, never a torn file under a blob's name. Two writes of the
 * same ciphertext meet at the same name; AES-GCM under a fresh IV makes that practically never happen.
 */
export class FsBlobStore implements BlobStore {
  readonly kind = 'fs';
  /** fs.ReadStream reads each chunk into a buffer of its own (a short last read is copied into one of its size). */
  readonly readChunksAreOwned = true;
  private readonly blobs: string;
  private readonly tmp: string;
  private tmpMade: Promise<unknown> | undefined;

  constructor(dir: string) {
    this.blobs = path.join(dir, 'blobs');
    this.tmp = path.join(dir, 'tmp');
  }

  async put(_hint: string, body: Readable): Promise<BlobLocation> {
    // Made once per process, not once per upload.
    this.tmpMade ??= fs.mkdir(this.tmp, { recursive: true }).catch((err: unknown) => {
      this.tmpMade = undefined; // tried again by the next upload
      throw err;
    });
    await this.tmpMade;
    const tmp = path.join(this.tmp, randomBytes(16).toString('hex'));
    const measured = measuring();
    try {
      // `flush`: the file is fsynced before it is closed, so the rename below publishes durable bytes.
      await pipeline(body, measured.stream, createWriteStream(tmp, { flags: 'wx', mode: 0o600, flush: true, highWaterMark: 256 * 1024 }));
    } catch (err) {
      await fs.rm(tmp, { force: true });
      throw err;
    }
    const key = measured.sha256();
    const target = this.pathOf(key);
    try {
      await fs.mkdir(path.dirname(target), { recursive: true });
      await fs.rename(tmp, target);
      await syncDir(path.dirname(target));
    } catch (err) {
      await fs.rm(tmp, { force: true });
      throw err;
    }
    return { key, sizeBytes: measured.size() };
  }

  async get(key: string): Promise<Readable | null> {
    if (!BLOB_KEY.test(key)) return null;
    const fd = await openForRead(this.pathOf(key));
    if (fd === null) return null;
    // The open descriptor keeps a blob purged meanwhile readable to its end, as a file system does. A plain
    // descriptor, not a FileHandle: its stream reads with fs.read callbacks, not a promise per read (bench:hosted).
    return createReadStream('', { fd, highWaterMark: READ_CHUNK });
  }

  async delete(key: string): Promise<void> {
    const file = BLOB_KEY.test(key) ? this.pathOf(key) : key.startsWith(TMP_PREFIX) && TMP_NAME.test(key.slice(TMP_PREFIX.length)) ? path.join(this.tmp, key.slice(TMP_PREFIX.length)) : null;
    if (!file) return;
    await fs.rm(file, { force: true });
  }

  /** Blobs, and temporary files a crash left behind (as `tmp/<name>`), last modified before `before`. */
  async *list(before: Date): AsyncIterable<{ key: string; storedAt: Date }> {
    for (const name of await entries(this.tmp)) {
      const at = await mtime(path.join(this.tmp, name));
      if (at && at < before && TMP_NAME.test(name)) yield { key: `${TMP_PREFIX}${name}`, storedAt: at };
    }
    for (const a of await entries(this.blobs)) {
      for (const b of await entries(path.join(this.blobs, a))) {
        for (const key of await entries(path.join(this.blobs, a, b))) {
          if (!BLOB_KEY.test(key)) continue;
          const at = await mtime(path.join(this.blobs, a, b, key));
          if (at && at < before) yield { key, storedAt: at };
        }
      }
    }
  }

  /** Where a blob's file is: `blobs/ab/cd/<key>`. */
  pathOf(key: string): string {
    return path.join(this.blobs, key.slice(0, 2), key.slice(2, 4), key);
  }
}

const openDescriptor = promisify(openFd);

/** A blob file's descriptor, or null when it is not there. */
function openForRead(file: string): Promise<number | null> {
  return openDescriptor(file, 'r').catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? null : Promise.reject(err)));
}

async function entries(dir: string): Promise<string[]> {
  return fs.readdir(dir).catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? [] : Promise.reject(err)));
}

async function mtime(file: string): Promise<Date | null> {
  return fs.stat(file).then(
    (s) => s.mtime,
    () => null,
  );
}

/** A rename is durable once its directory is synced. */
async function syncDir(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
