import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { Client } from 'pg';
import { answerChallenge, dbClient, jpegBytes, openPage, pageCall, pngBytes, sha256, upload } from '../helpers/hosted-client';
import { LOCAL_S3_CREDENTIALS, startLocalS3, type LocalS3 } from '../helpers/local-s3';
import { createTenant, eventually, http, startServer, Tenant, testEnv, TestServer, ENGINES_OFF } from '../helpers/test-server';

/**
 * The vault on an S3-compatible bucket (issue 30), through the built server configured by env only:
 * VAULT_STORE=s3 with VAULT_S3_BUCKET / VAULT_S3_ENDPOINT / VAULT_S3_PREFIX, the SDK's usual credentials.
 * The bucket is s3rver's (test/helpers/local-s3.ts), started here.
 */
const PREFIX = 'e2e-vault';

let s3: LocalS3;
let bucket: S3Client;
let server: TestServer;
let acme: Tenant;
let db: Client;

beforeAll(async () => {
  s3 = await startLocalS3('evidence');
  bucket = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, credentials: LOCAL_S3_CREDENTIALS });
  server = await startServer(testEnv({ ...ENGINES_OFF, ...s3.env, VAULT_STORE: 's3', VAULT_S3_PREFIX: PREFIX }));
  acme = await createTenant(server, 'acme');
  db = await dbClient(server);
});
afterAll(async () => {
  await db?.end();
  await server?.stop();
  bucket?.destroy();
  await s3?.close();
});

async function objectKeys(): Promise<string[]> {
  const r = await bucket.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: `${PREFIX}/` }));
  return (r.Contents ?? []).map((o) => o.Key!).sort();
}

async function objectBytes(key: string): Promise<Buffer> {
  const r = await bucket.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
  return Buffer.from(await r.Body!.transformToByteArray());
}

async function openSession() {
  const r = await http(server, 'POST', '/v1/verify/sessions', { key: acme.live_api_key, json: { flow_id: 'default', tier: 'T2' } });
  expect(r.status).toBe(201);
  const page = await openPage(server, r.body);
  expect((await pageCall(server, page, 'POST', 'start')).body.status).toBe('in_progress');
  return { session: r.body as { id: string }, page };
}

it('keeps each upload as ciphertext at <prefix>/<artifact id> in the bucket, and evidence links return the bytes sent', async () => {
  const { session, page } = await openSession();
  // 7 MiB with its Content-Length: more than one 5 MiB part, streamed to the bucket as one PutObject, nothing buffered.
  const selfie = jpegBytes(7 * 1024 * 1024, 5);
  const doc = pngBytes(16, 10, [10, 120, 200]);
  const stored = [];
  for (const [bytes, cls, type] of [[doc, 'id_document_image', 'image/png'], [selfie, 'selfie_image', 'image/jpeg']] as const) {
    const r = await upload(server, page, { class: cls }, bytes, type);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ class: cls, size: bytes.length, sha256: sha256(bytes) });
    stored.push({ id: r.body.id as string, bytes });
  }

  const keys = await objectKeys();
  for (const { id, bytes } of stored) {
    expect(keys).toContain(`${PREFIX}/${id}`);
    const object = await objectBytes(`${PREFIX}/${id}`);
    // AES-GCM: as long as the clear bytes, and nothing like them.
    expect(object.length).toBe(bytes.length);
    expect(object.equals(bytes)).toBe(false);
  }

  await answerChallenge(server, page, (await pageCall(server, page, 'POST', 'challenge')).body, 3);
  expect((await pageCall(server, page, 'POST', 'submit')).status).toBe(200);
  const done = await eventually(async () => {
    const r = await http(server, 'GET', `/v1/verify/sessions/${session.id}`, { key: acme.live_api_key });
    return r.body.status === 'manual_review' ? r.body : undefined;
  });
  const urls: string[] = done.result.evidence_urls;
  const got = await Promise.all(urls.map(async (u) => Buffer.from(await (await fetch(u.replace(/^http:\/\/localhost:\d+/, server.url))).arrayBuffer())));
  const gotHashes = got.map(sha256);
  for (const { bytes } of stored) expect(gotHashes).toContain(sha256(bytes));
});

it('refuses bytes that are not the declared type with 415 and its error body, as the filesystem vault does, and keeps no object or row', async () => {
  const { page } = await openSession();
  const before = await objectKeys();
  // 3 MiB that are not a JPEG: refused at the sniff, while the body streams to the bucket.
  const r = await upload(server, page, { class: 'selfie_image' }, Buffer.alloc(3 * 1024 * 1024, 1), 'image/jpeg');
  expect(r.status).toBe(415);
  expect(r.body.error.code).toBe('unsupported_media_type');
  await eventually(async () => ((await objectKeys()).length === before.length ? true : undefined));
  const rows = await db.query('SELECT count(*)::int AS n FROM artifacts WHERE session_id = $1', [page.id]);
  expect(rows.rows[0].n).toBe(0);
});

it('refuses an upload with a spec error body, and stores no row, when the bucket cannot be written', async () => {
  const broken = await startServer(testEnv({ ...ENGINES_OFF, ...s3.env, VAULT_STORE: 's3', VAULT_S3_BUCKET: 'no-such-bucket' }));
  try {
    const tenant = await createTenant(broken, 'beta');
    const created = await http(broken, 'POST', '/v1/verify/sessions', { key: tenant.live_api_key, json: { flow_id: 'default', tier: 'T2' } });
    const page = await openPage(broken, created.body);
    await pageCall(broken, page, 'POST', 'start');

    const r = await upload(broken, page, { class: 'selfie_image' }, jpegBytes(4096, 7), 'image/jpeg');

    expect(r.status).toBeGreaterThanOrEqual(500);
    expect(typeof r.body.error.code).toBe('string');
    expect(r.text).not.toMatch(/NoSuchBucket|at .*\.js/);
    const brokenDb = await dbClient(broken);
    try {
      const rows = await brokenDb.query('SELECT count(*)::int AS n FROM artifacts WHERE session_id = $1', [page.id]);
      expect(rows.rows[0].n).toBe(0);
    } finally {
      await brokenDb.end();
    }
  } finally {
    await broken.stop();
  }
});

it('will not start with VAULT_STORE=s3 and no bucket, naming the missing setting', async () => {
  const { VAULT_S3_BUCKET: _dropped, ...withoutBucket } = { ...s3.env };
  await expect(startServer(testEnv({ ...withoutBucket, VAULT_STORE: 's3' }))).rejects.toThrow(/VAULT_S3_BUCKET/);
});
