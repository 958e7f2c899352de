import { AbortMultipartUploadCommand, DeleteObjectCommand, GetObjectCommand, PutObjectCommand, paginateListObjectsV2, S3Client, S3ClientConfig, S3ServiceException } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable } from 'node:stream';
import type { S3BlobStoreConfig } from '../config';
import type { BlobLocation, BlobStore } from './blob-store';

export type S3BlobStoreOptions = {
  bucket: string;
  prefix?: string;
  /**
   * Bytes of one multipart part: S3's minimum (5 MiB) by default. A body up to this size is one
   * PutObject; a larger one is uploaded in parts, each buffered once while it is sent.
   * @default 5 MiB
   */
  partSizeBytes?: number;
  /**
   * Parts of one multipart upload in flight at once; such an upload holds at most (this + 2) parts in memory.
   * @default 2
   */
  partsInFlight?: number;
  /**
   * First-part buffers kept for reuse between uploads (each `partSizeBytes`, so 80 MiB at most by
   * default): on the 2-core test machine a fresh 5 MiB buffer per upload, as lib-storage allocates,
   * cost about as much as the upload's encryption (docs/benchmarks.md, "S3 artifact store").
   * @default 16
   */
  reusedPartBuffers?: number;
  /**
   * The client for bodies of known length, streamed as one PutObject with nothing buffered: one
   * attempt (the SDK cannot replay a stream) and no trailing checksum (see putStreamed). Without
   * it, every body is buffered part by part as above.
   */
  streamingClient?: S3Client;
};

const MIB = 1024 * 1024;
/** What a streamed put's client changes: one attempt, and a checksum only where S3 requires one (never on PutObject). */
const STREAMED_PUTS = { maxAttempts: 1, requestChecksumCalculation: 'WHEN_REQUIRED' } as const;
/** S3's limit for one PutObject; a larger body known in advance goes in parts. */
const MAX_SINGLE_PUT_BYTES = 5 * 1024 * MIB;
const CONTENT_TYPE = 'application/octet-stream';
/** An artifact id as the vault makes them (`art_...`): no `/`, so a hint cannot reach outside the prefix. */
const SAFE_HINT = /^[A-Za-z0-9_.-]{1,200}$/;

/** A request to the bucket failed: names the operation, the object and what the server answered. */
export class S3BlobStoreError extends Error {
  override readonly name = 'S3BlobStoreError';
  constructor(
    readonly operation: 'put' | 'get' | 'delete' | 'list',
    readonly bucket: string,
    readonly key: string,
    cause: unknown,
    /** The failed upload's parts could not be dropped either (a lifecycle rule then clears them). */
    readonly abortFailure?: unknown,
  ) {
    const leftParts = abortFailure === undefined ? '' : `; its parts were left (abort failed: ${describe(abortFailure)})`;
    super(`S3 ${operation} of s3://${bucket}/${key} failed: ${describe(cause)}${leftParts}`, { cause });
  }
}

/** The client the vault's store uses for a config: also what the benchmark's raw baseline sends through. */
export function s3ClientFor(config: S3BlobStoreConfig, overrides: Pick<S3ClientConfig, 'maxAttempts' | 'requestChecksumCalculation'> = {}): S3Client {
  return new S3Client({
    ...overrides,
    region: config.region ?? (config.endpoint ? 'us-east-1' : undefined),
    ...(config.endpoint ? { endpoint: config.endpoint } : {}),
    forcePathStyle: config.forcePathStyle,
    // A bucket that does not answer must fail an upload rather than hold it; a slow reader of a
    // download is not a dead bucket, so there is no idle timeout on the socket.
    requestHandler: { connectionTimeout: 10_000 },
  });
}

/** The S3 back end of the vault, from the parsed VAULT_S3_* settings. */
export function s3BlobStoreFromConfig(config: S3BlobStoreConfig): S3BlobStore {
  return new S3BlobStore(s3ClientFor(config), { bucket: config.bucket, prefix: config.prefix, streamingClient: s3ClientFor(config, STREAMED_PUTS) });
}

/**
 * Artifact ciphertext in an S3-compatible bucket (issue 30), one object per artifact at
 * `<prefix>/<artifact id>`. A body up to one part is a single PutObject; a larger one streams on
 * as a multipart upload (`@aws-sdk/lib-storage`) that is aborted if the body or a part fails, so a
 * failed put leaves no object behind (if the abort fails too, a lifecycle rule clears the parts:
 * docs/operations.md, "Object storage"). Reads are the GetObject stream.
 */
export class S3BlobStore implements BlobStore {
  readonly kind = 's3';
  readonly readChunksAreOwned = false;
  private readonly prefix: string;
  private readonly partSizeBytes: number;
  private readonly partsInFlight: number;
  private readonly partBuffers: PartBuffers;

  constructor(
    private readonly client: S3Client,
    private readonly opts: S3BlobStoreOptions,
  ) {
    const trimmed = (opts.prefix ?? '').replace(/^\/+|\/+$/g, '');
    this.prefix = trimmed ? `${trimmed}/` : '';
    this.partSizeBytes = Math.max(opts.partSizeBytes ?? 5 * MIB, 5 * MIB);
    this.partsInFlight = opts.partsInFlight ?? 2;
    this.partBuffers = new PartBuffers(this.partSizeBytes, opts.reusedPartBuffers ?? 16);
  }

  /** Where this store would keep the artifact `hint`. */
  keyFor(hint: string): string {
    if (!SAFE_HINT.test(hint)) throw new Error(`Not an artifact id: ${JSON.stringify(hint)}`);
    return `${this.prefix}${hint}`;
  }

  async put(hint: string, body: Readable, sizeBytes?: number): Promise<BlobLocation> {
    const key = this.keyFor(hint);
    const streaming = this.opts.streamingClient;
    if (streaming && sizeBytes !== undefined && sizeBytes > 0 && sizeBytes <= MAX_SINGLE_PUT_BYTES) return this.putStreamed(streaming, key, body, sizeBytes);
    const first = this.partBuffers.take();
    try {
      // The first part is read into a reused buffer: most artifacts fit in it and go up as one
      // PutObject; a larger body continues as a multipart upload behind it.
      const source = body[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
      let filled = 0;
      let spill: Buffer | null = null;
      // An error of the body itself (a refused type, a client gone) goes up as it is: nothing was sent yet.
      for (let next = await source.next(); !next.done; next = await source.next()) {
        const chunk = asBuffer(next.value);
        const room = first.length - filled;
        chunk.copy(first, filled, 0, Math.min(room, chunk.length));
        filled += Math.min(room, chunk.length);
        if (chunk.length > room) {
          spill = chunk.subarray(room);
          break;
        }
      }
      if (!spill) return await this.putOnce(key, first.subarray(0, filled));
      return await this.putInParts(key, first.subarray(0, filled), spill, source);
    } finally {
      this.partBuffers.give(first);
    }
  }

  /**
   * A body of known length as one PutObject that streams it: nothing is buffered, so memory does
   * not grow with the uploads in flight. The SDK cannot replay a stream, so this request is not
   * retried (a bucket error fails the upload, and the page asks the person to capture it again: the
   * price of holding nothing), and it is sent without a trailing checksum, which
   * would need aws-chunked encoding: the artifact's AES-GCM tag proves its bytes on every read. A
   * body that fails aborts the request and its key is deleted (S3 keeps nothing of a PUT that ends
   * short, but not every S3-compatible server is as careful; the orphan sweep is the last resort).
   */
  private async putStreamed(client: S3Client, key: string, body: Readable, sizeBytes: number): Promise<BlobLocation> {
    // The request starts with the body's first bytes: a body refused at once (the vault's type sniff) sends nothing.
    const source = body[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
    const first = await source.next();
    const abort = new AbortController();
    // The SDK pipes the body into its request, and a pipe does not pass an error on: abort by hand.
    const read = readOn(first.done ? [] : [asBuffer(first.value)], source, (err) => abort.abort(err));
    try {
      await client.send(new PutObjectCommand({ Bucket: this.opts.bucket, Key: key, Body: read.stream, ContentLength: sizeBytes, ContentType: CONTENT_TYPE }), { abortSignal: abort.signal });
    } catch (err) {
      if (read.bodyError() === undefined) throw new S3BlobStoreError('put', this.opts.bucket, key, err);
      // S3 keeps nothing of a PUT that ended short; s3rver keeps the bytes it got. A leftover is an orphan either way.
      await this.delete(key).catch(() => undefined);
      throw read.bodyError();
    }
    return { key, sizeBytes };
  }

  private async putOnce(key: string, bytes: Buffer): Promise<BlobLocation> {
    try {
      await this.client.send(new PutObjectCommand({ Bucket: this.opts.bucket, Key: key, Body: bytes, ContentLength: bytes.length, ContentType: CONTENT_TYPE }));
    } catch (err) {
      throw new S3BlobStoreError('put', this.opts.bucket, key, err);
    }
    return { key, sizeBytes: bytes.length };
  }

  private async putInParts(key: string, head: Buffer, spill: Buffer, rest: AsyncIterator<Buffer | string>): Promise<BlobLocation> {
    const read = readOn([head, spill], rest);
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.opts.bucket, Key: key, Body: read.stream, ContentType: CONTENT_TYPE },
      partSize: this.partSizeBytes,
      queueSize: this.partsInFlight,
      // The store aborts the parts itself, so that the error reported is the one that failed the upload, not the abort's.
      leavePartsOnError: true,
    });
    try {
      await upload.done();
    } catch (err) {
      const abortFailure = await this.abortParts(key, upload.uploadId);
      if (read.bodyError() !== undefined) throw read.bodyError(); // the body's own error, as a small body's is
      throw new S3BlobStoreError('put', this.opts.bucket, key, err, abortFailure);
    }
    return { key, sizeBytes: read.bytes() };
  }

  /** Drops the parts of a failed multipart upload; answers what went wrong, if that failed too. */
  private async abortParts(key: string, uploadId: string | undefined): Promise<unknown> {
    if (!uploadId) return undefined;
    try {
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.opts.bucket, Key: key, UploadId: uploadId }));
      return undefined;
    } catch (err) {
      return err;
    }
  }

  async get(key: string): Promise<Readable | null> {
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.opts.bucket, Key: key }));
      // In Node the SDK answers with the response's IncomingMessage, a Readable.
      if (!(r.Body instanceof Readable)) throw new Error('the SDK answered GetObject without a Node stream');
      return r.Body;
    } catch (err) {
      if (isMissingKey(err)) return null;
      throw new S3BlobStoreError('get', this.opts.bucket, key, err);
    }
  }

  async delete(key: string): Promise<void> {
    try {
      // S3 answers 204 whether or not the key was there.
      await this.client.send(new DeleteObjectCommand({ Bucket: this.opts.bucket, Key: key }));
    } catch (err) {
      if (isMissingKey(err)) return;
      throw new S3BlobStoreError('delete', this.opts.bucket, key, err);
    }
  }

  async *list(before: Date): AsyncIterable<{ key: string; storedAt: Date }> {
    const pages = paginateListObjectsV2({ client: this.client, pageSize: 1000 }, { Bucket: this.opts.bucket, ...(this.prefix ? { Prefix: this.prefix } : {}) });
    try {
      for await (const page of pages) {
        for (const object of page.Contents ?? []) {
          if (object.Key && object.LastModified && object.LastModified < before) yield { key: object.Key, storedAt: object.LastModified };
        }
      }
    } catch (err) {
      throw new S3BlobStoreError('list', this.opts.bucket, this.prefix || '*', err);
    }
  }

  close(): void {
    this.client.destroy();
    this.opts.streamingClient?.destroy();
  }
}

function isMissingKey(err: unknown): boolean {
  return err instanceof S3ServiceException && (err.name === 'NoSuchKey' || (err.name !== 'NoSuchBucket' && err.$metadata.httpStatusCode === 404));
}

function describe(err: unknown): string {
  if (err instanceof S3ServiceException) return `${err.name} (HTTP ${err.$metadata.httpStatusCode ?? '?'}): ${err.message}`;
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return code ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}

const asBuffer = (chunk: Buffer | string): Buffer => (typeof chunk === 'string' ? Buffer.from(chunk) : chunk);

/**
 * A body the store has begun to read, read on: `heads` (what it took already), then the rest of
 * `rest`, as one byte stream pulled as the uploader asks. It counts the bytes that went out, so a
 * size needs no second pass, and keeps the body's own error apart from what the bucket answers
 * (`onBodyError` hears it before the stream ends with it). An upload that stops pulling lets the
 * body go, as a `for await` would.
 */
function readOn(heads: Buffer[], rest: AsyncIterator<Buffer | string>, onBodyError: (err: unknown) => void = () => undefined) {
  let bytes = 0;
  let bodyError: unknown;
  const stream = Readable.from(
    (async function* () {
      for (const chunk of heads) {
        bytes += chunk.length;
        yield chunk;
      }
      try {
        for (;;) {
          const next = await rest.next().catch((err: unknown) => {
            bodyError = err;
            onBodyError(err);
            throw err;
          });
          if (next.done) return;
          const chunk = asBuffer(next.value);
          bytes += chunk.length;
          yield chunk;
        }
      } finally {
        await rest.return?.();
      }
    })(),
    { objectMode: false, highWaterMark: 64 * 1024 },
  );
  // The caller learns of the body's error by bodyError(); a reader that already let go (an aborted request) must not make it uncaught.
  stream.on('error', () => undefined);
  return { stream, bytes: () => bytes, bodyError: () => bodyError };
}

/** Part-sized buffers handed from one upload to the next; at most `keep` wait unused. They only ever hold ciphertext. */
class PartBuffers {
  private readonly free: Buffer[] = [];
  constructor(
    private readonly size: number,
    private readonly keep: number,
  ) {}

  take(): Buffer {
    return this.free.pop() ?? Buffer.allocUnsafeSlow(this.size);
  }

  give(buffer: Buffer): void {
    if (this.free.length < this.keep) this.free.push(buffer);
  }
}
