import { S3Client } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { LOCAL_S3_CREDENTIALS, startLocalS3, type LocalS3 } from '../../test/helpers/local-s3';
import { S3BlobStore, S3BlobStoreError, s3BlobStoreFromConfig, s3ClientFor } from './s3-blob-store';

const MIB = 1024 * 1024;

/** A body that arrives as a socket delivers it: in 64 KiB chunks, pulled as the reader asks. */
function chunked(bytes: Buffer, chunk = 64 * 1024): Readable {
  return Readable.from(
    (function* () {
      for (let i = 0; i < bytes.length; i += chunk) yield bytes.subarray(i, i + chunk);
    })(),
  );
}

/** A client like the server's, recording the S3 operations it sends (the SDK's own middleware hook). */
function recordingClient(s3: LocalS3): { client: S3Client; sent: string[] } {
  const client = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, credentials: LOCAL_S3_CREDENTIALS });
  const sent: string[] = [];
  client.middlewareStack.add(
    (next, context) => (args) => {
      sent.push(String(context.commandName).replace(/Command$/, ''));
      return next(args);
    },
    { step: 'initialize' },
  );
  return { client, sent };
}

describe('S3BlobStore against a local S3-compatible server (s3rver)', () => {
  let s3: LocalS3;
  const savedEnv = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
  beforeAll(async () => {
    s3 = await startLocalS3('vault');
    process.env.AWS_ACCESS_KEY_ID = LOCAL_S3_CREDENTIALS.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = LOCAL_S3_CREDENTIALS.secretAccessKey;
  });
  afterAll(async () => {
    await s3.close();
    for (const [name, value] of [['AWS_ACCESS_KEY_ID', savedEnv.id], ['AWS_SECRET_ACCESS_KEY', savedEnv.secret]] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('streams a 12 MiB body up in 5 MiB parts and gives back the same bytes', async () => {
    const { client, sent } = recordingClient(s3);
    const store = new S3BlobStore(client, { bucket: s3.bucket, prefix: 'artifacts' });
    const bytes = randomBytes(12 * MIB + 7);

    const location = await store.put('art_multipart', chunked(bytes));

    expect(location).toEqual({ key: 'artifacts/art_multipart', sizeBytes: bytes.length });
    expect(sent).toEqual(['CreateMultipartUpload', 'UploadPart', 'UploadPart', 'UploadPart', 'CompleteMultipartUpload']);
    const back = await store.get(location.key);
    expect(back).not.toBeNull();
    expect((await buffer(back!)).equals(bytes)).toBe(true);
    store.close();
  });

  it('stores a body smaller than one part with a single PutObject', async () => {
    const { client, sent } = recordingClient(s3);
    const store = new S3BlobStore(client, { bucket: s3.bucket });
    const bytes = randomBytes(300 * 1024);

    const location = await store.put('art_small', chunked(bytes));

    expect(location).toEqual({ key: 'art_small', sizeBytes: bytes.length });
    expect(sent).toEqual(['PutObject']);
    expect((await buffer((await store.get('art_small'))!)).equals(bytes)).toBe(true);
    store.close();
  });

  it('sends a body of exactly one part as one PutObject, and a shorter one after it gets back only its own bytes', async () => {
    const { client, sent } = recordingClient(s3);
    const store = new S3BlobStore(client, { bucket: s3.bucket, reusedPartBuffers: 1 });
    const whole = randomBytes(5 * MIB);
    const short = randomBytes(1000);

    const a = await store.put('art_exact', chunked(whole));
    const b = await store.put('art_after', chunked(short));

    expect(sent).toEqual(['PutObject', 'PutObject']);
    expect([a.sizeBytes, b.sizeBytes]).toEqual([whole.length, short.length]);
    expect((await buffer((await store.get(a.key))!)).equals(whole)).toBe(true);
    expect((await buffer((await store.get(b.key))!)).equals(short)).toBe(true);
    store.close();
  });

  it('fails with the body\'s own error when a small body fails before its end, storing nothing', async () => {
    const { client, sent } = recordingClient(s3);
    const store = new S3BlobStore(client, { bucket: s3.bucket });
    const body = Readable.from(
      (async function* () {
        yield randomBytes(1000);
        throw new Error('socket closed');
      })(),
    );

    const failure = store.put('art_cut', body);
    await expect(failure).rejects.toThrow('socket closed');
    await expect(failure).rejects.not.toBeInstanceOf(S3BlobStoreError);
    expect(sent).toEqual([]);
    expect(await store.get('art_cut')).toBeNull();
  });

  it('answers null for a key that is not there, and deleting twice is not an error', async () => {
    // The store from the settings takes its credentials from the SDK's chain, here the environment (set in beforeAll).
    const store = s3BlobStoreFromConfig({ bucket: s3.bucket, endpoint: s3.endpoint, prefix: 'del', forcePathStyle: true, region: 'us-east-1' });
    expect(await store.get('del/art_never')).toBeNull();

    const { key } = await store.put('art_gone', chunked(Buffer.from('ciphertext')));
    expect(await store.get(key)).not.toBeNull();
    await store.delete(key);
    expect(await store.get(key)).toBeNull();
    await expect(store.delete(key)).resolves.toBeUndefined();
    store.close();
  });

  it('lists the blobs under its prefix stored before a time, for the orphan sweep', async () => {
    const { client } = recordingClient(s3);
    const store = new S3BlobStore(client, { bucket: s3.bucket, prefix: 'sweep/' });
    const other = new S3BlobStore(client, { bucket: s3.bucket, prefix: 'elsewhere' });
    const startedAt = Date.now();
    await store.put('art_a', chunked(Buffer.from('a')));
    await store.put('art_b', chunked(Buffer.from('b')));
    await other.put('art_c', chunked(Buffer.from('c')));

    const listed = [];
    for await (const blob of store.list(new Date(Date.now() + 2000))) listed.push(blob);
    expect(listed.map((b) => b.key).sort()).toEqual(['sweep/art_a', 'sweep/art_b']);
    // Stored while the test ran (S3 reports LastModified to the second): an order, not a duration a loaded machine stretches.
    for (const blob of listed) {
      expect(blob.storedAt.getTime()).toBeGreaterThanOrEqual(Math.floor(startedAt / 1000) * 1000);
      expect(blob.storedAt.getTime()).toBeLessThanOrEqual(Date.now());
    }

    const older = [];
    for await (const blob of store.list(new Date(startedAt - 60_000))) older.push(blob);
    expect(older).toEqual([]);
  });

  it('refuses an id that would name a key outside its prefix', async () => {
    const store = new S3BlobStore(recordingClient(s3).client, { bucket: s3.bucket, prefix: 'p' });
    await expect(store.put('../art_x', chunked(Buffer.from('x')))).rejects.toThrow('Not an artifact id');
  });

  it('fails a put into a bucket that does not exist with an error naming the bucket, the key and the answer', async () => {
    const store = new S3BlobStore(recordingClient(s3).client, { bucket: 'no-such-bucket' });
    const failure = store.put('art_lost', chunked(randomBytes(1024)));
    await expect(failure).rejects.toBeInstanceOf(S3BlobStoreError);
    await expect(failure).rejects.toThrow('S3 put of s3://no-such-bucket/art_lost failed: NoSuchBucket (HTTP 404)');
    // A missing bucket is an error, not a missing blob.
    await expect(store.get('art_lost')).rejects.toThrow('S3 get of s3://no-such-bucket/art_lost failed: NoSuchBucket');
  });

  it('fails with the connection error when the server is not there', async () => {
    const gone = await startLocalS3('vault');
    await gone.close();
    const store = new S3BlobStore(s3ClientFor({ bucket: 'vault', endpoint: gone.endpoint, prefix: undefined, forcePathStyle: true, region: 'us-east-1' }), { bucket: 'vault' });
    await expect(store.get('art_any')).rejects.toThrow(/S3 get of s3:\/\/vault\/art_any failed: .*ECONNREFUSED/);
    store.close();
  });

  it('fails with the body\'s own error when the body fails half way, leaving no object', async () => {
    const { client } = recordingClient(s3);
    const store = new S3BlobStore(client, { bucket: s3.bucket, prefix: 'broken' });
    const body = Readable.from(
      (async function* () {
        yield randomBytes(6 * MIB);
        throw new Error('client went away');
      })(),
    );

    const failure = store.put('art_half', body);

    // The body's own error, as the vault's refusals (a wrong type, too many bytes) must reach the client as they are.
    await expect(failure).rejects.toThrow('client went away');
    await expect(failure).rejects.not.toBeInstanceOf(S3BlobStoreError);
    expect(await store.get('broken/art_half')).toBeNull();
  });

  describe('a body of known length (an upload with its Content-Length)', () => {
    // The store as the server builds it, with its client for streamed puts.
    const streamingStore = (prefix: string) => s3BlobStoreFromConfig({ bucket: s3.bucket, endpoint: s3.endpoint, prefix, forcePathStyle: true, region: 'us-east-1' });

    it('streams it as one PutObject, a 12 MiB body too, and gives back the same bytes', async () => {
      const store = streamingStore('streamed');
      for (const size of [1000, 5 * MIB, 12 * MIB + 3]) {
        const bytes = randomBytes(size);
        const location = await store.put(`art_s${size}`, chunked(bytes), size);
        expect(location).toEqual({ key: `streamed/art_s${size}`, sizeBytes: size });
        expect((await buffer((await store.get(location.key))!)).equals(bytes)).toBe(true);
      }
      store.close();
    });

    it('sends nothing when the body fails before its first byte (a refused type), and fails with the body\'s own error', async () => {
      const config = { bucket: s3.bucket, endpoint: s3.endpoint, prefix: 'streamed-refused', forcePathStyle: true, region: 'us-east-1' };
      const streaming = recordingClient(s3);
      const store = new S3BlobStore(s3ClientFor(config), { bucket: s3.bucket, prefix: 'streamed-refused', streamingClient: streaming.client });
      const body = Readable.from(
        (async function* () {
          yield* [];
          throw new Error('not a JPEG');
        })(),
      );
      const failure = store.put('art_refused', body, 4 * MIB);
      await expect(failure).rejects.toThrow('not a JPEG');
      await expect(failure).rejects.not.toBeInstanceOf(S3BlobStoreError);
      expect(streaming.sent).toEqual([]);
      expect(await store.get('streamed-refused/art_refused')).toBeNull();
      store.close();
    });

    it('fails with the body\'s own error when the body fails half way', async () => {
      const store = streamingStore('streamed-broken');
      const body = Readable.from(
        (async function* () {
          yield randomBytes(2 * MIB);
          throw new Error('client went away');
        })(),
      );
      const failure = store.put('art_cut', body, 4 * MIB);
      await expect(failure).rejects.toThrow('client went away');
      await expect(failure).rejects.not.toBeInstanceOf(S3BlobStoreError);
      // S3 keeps nothing of a cut PUT; s3rver keeps what it got, and may still be writing it when the store's
      // delete arrives (docs/operations.md): what it kept then is an orphan, named by no row, for the sweep.
      store.close();
    });

    it('fails a put into a bucket that does not exist with the store\'s error', async () => {
      const store = s3BlobStoreFromConfig({ bucket: 'no-such-bucket', endpoint: s3.endpoint, prefix: undefined, forcePathStyle: true, region: 'us-east-1' });
      await expect(store.put('art_lost', chunked(randomBytes(1024)), 1024)).rejects.toThrow('S3 put of s3://no-such-bucket/art_lost failed: NoSuchBucket (HTTP 404)');
      store.close();
    });
  });
});
