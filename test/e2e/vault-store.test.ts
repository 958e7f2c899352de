import fs from 'node:fs';
import nodeHttp from 'node:http';
import net from 'node:net';
import path from 'node:path';
import type { Client } from 'pg';
import { dbClient, jpegBytes, openPage, pageCall, sha256, upload } from '../helpers/hosted-client';
import { cli, createTenant, eventually, http, startServer, Tenant, testEnv, TestServer, ENGINES_OFF } from '../helpers/test-server';
import { blobFile } from '../helpers/vault-files';

/** A live T1 session captured (a document and a selfie of these bytes) and submitted; answers its evidence URLs once it waits for review. */
async function captured(server: TestServer, tenant: Tenant, doc: Buffer, selfie: Buffer): Promise<{ id: string; urls: string[] }> {
  const s = (await http(server, 'POST', '/v1/verify/sessions', { key: tenant.live_api_key, json: { flow_id: 'default', tier: 'T1' } })).body;
  const page = await openPage(server, s);
  expect((await pageCall(server, page, 'POST', 'start')).status).toBe(200);
  expect((await upload(server, page, { class: 'id_document_image', side: 'data_page' }, doc, 'image/jpeg')).status).toBe(201);
  expect((await upload(server, page, { class: 'selfie_image' }, selfie, 'image/jpeg')).status).toBe(201);
  expect((await pageCall(server, page, 'POST', 'submit')).status).toBe(200);
  const done = await eventually(async () => {
    const r = await http(server, 'GET', `/v1/verify/sessions/${s.id}`, { key: tenant.live_api_key });
    return r.body.status === 'manual_review' ? r.body : undefined;
  }, 60_000);
  return { id: s.id, urls: done.result.evidence_urls as string[] };
}

/** The embedded database goes down with its server: a client of the old one is dead after a restart. */
async function reconnected(db: Client, server: TestServer): Promise<Client> {
  await db.end().catch(() => undefined);
  return quiet(await dbClient(server));
}

/** A client of the embedded database sees its connection drop when the server stops: expected here. */
function quiet(db: Client): Client {
  db.on('error', () => undefined);
  return db;
}

async function download(server: TestServer, url: string): Promise<{ status: number; bytes: Buffer; length: string | null }> {
  const res = await fetch(url.replace(/^https?:\/\/[^/]+/, server.url));
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()), length: res.headers.get('content-length') };
}

describe('the filesystem vault (the default store)', () => {
  let server: TestServer;
  let acme: Tenant;
  let db: Client;
  const doc = jpegBytes(3 * 1024 * 1024 + 17, 5);
  const selfie = jpegBytes(200_000, 9);

  beforeAll(async () => {
    server = await startServer(testEnv(ENGINES_OFF));
    acme = await createTenant(server, 'vault-fs');
    db = quiet(await dbClient(server));
  });
  afterAll(async () => {
    await db?.end().catch(() => undefined);
    await server?.stop();
  });

  it('keeps uploads as ciphertext files named by their hash, reads them back, keeps them across a restart, and deletes them with the purge', async () => {
    const { id, urls } = await captured(server, acme, doc, selfie);
    const rows = (await db.query(`SELECT id, blob_key, size_bytes FROM artifacts WHERE session_id = $1 AND class IN ('id_document_image', 'selfie_image') ORDER BY class`, [id])).rows as { id: string; blob_key: string; size_bytes: number }[];
    expect(rows).toHaveLength(2);
    for (const r of rows) {
      const file = fs.readFileSync(blobFile(server.env.DATA_DIR!, r.blob_key));
      // AES-GCM keeps the length; the file is what its name says, and not the clear bytes.
      expect(file.length).toBe(Number(r.size_bytes));
      expect(sha256(file)).toBe(r.blob_key);
      expect(file.subarray(0, 3).equals(doc.subarray(0, 3))).toBe(false);
    }
    const inDatabase = await db.query(`SELECT count(*)::int AS n FROM artifact_blobs WHERE artifact_id = ANY($1)`, [rows.map((r) => r.id)]);
    expect(inDatabase.rows[0].n).toBe(0);

    const read = await Promise.all(urls.map((u) => download(server, u)));
    expect(read.map((r) => r.status)).toEqual([200, 200]);
    expect(read.map((r) => sha256(r.bytes)).sort()).toEqual([sha256(doc), sha256(selfie)].sort());
    expect(read.map((r) => Number(r.length)).sort((a, b) => a - b)).toEqual([selfie.length, doc.length]);

    // A restart on the same DATA_DIR: the same links return the same bytes.
    await server.stop();
    server = await startServer({ ...server.env, PORT: '0' });
    db = await reconnected(db, server);
    const again = await Promise.all(urls.map((u) => download(server, u)));
    expect(again.map((r) => sha256(r.bytes)).sort()).toEqual([sha256(doc), sha256(selfie)].sort());

    // The retention purge deletes the files, not only the rows' keys.
    await db.query(`UPDATE artifacts SET retain_until = now() - interval '1 second' WHERE session_id = $1`, [id]);
    expect((await cli(server.env, ['vault', 'purge-expired', '--json'])).code).toBe(0);
    for (const r of rows) expect(fs.existsSync(blobFile(server.env.DATA_DIR!, r.blob_key))).toBe(false);
    const after = await db.query(`SELECT count(*)::int AS n FROM artifacts WHERE session_id = $1 AND (blob_key IS NOT NULL OR purged_at IS NULL)`, [id]);
    expect(after.rows[0].n).toBe(0);
    expect((await download(server, urls[0])).status).toBe(410);
  });

  it('gives a slow reader the same bytes, and a reader that leaves midway costs the next one nothing (each chunk is freed once sent)', async () => {
    const { urls } = await captured(server, acme, doc, selfie);
    const whole = await Promise.all(urls.map((u) => download(server, u)));
    const docUrl = new URL(urls[whole.findIndex((r) => r.bytes.length === doc.length)].replace(/^https?:\/\/[^/]+/, server.url));
    /** Reads with a pause after every 256 KiB, so the server's socket fills and it waits for room; or leaves after the first chunk. */
    const slowly = (leave: boolean) =>
      new Promise<Buffer>((resolve, reject) => {
        nodeHttp
          .get(docUrl, (res) => {
            const got: Buffer[] = [];
            let sincePause = 0;
            res.on('data', (c: Buffer) => {
              got.push(c);
              if (leave) return res.destroy();
              sincePause += c.length;
              if (sincePause >= 256 * 1024) {
                sincePause = 0;
                res.pause();
                setTimeout(() => res.resume(), 20);
              }
            });
            res.on('end', () => resolve(Buffer.concat(got)));
            res.on('close', () => leave && resolve(Buffer.concat(got)));
            res.on('error', reject);
          })
          .on('error', reject);
      });
    const [first, left, second] = await Promise.all([slowly(false), slowly(true), slowly(false)]);
    expect(sha256(first)).toBe(sha256(doc));
    expect(sha256(second)).toBe(sha256(doc));
    expect(left.length).toBeLessThan(doc.length);
    expect(sha256((await download(server, docUrl.href)).bytes)).toBe(sha256(doc));
  });

  it('answers a HEAD with the length and no body, and two GETs pipelined behind it on one connection with the whole bytes each', async () => {
    const { urls } = await captured(server, acme, doc, selfie);
    const whole = await Promise.all(urls.map((u) => download(server, u)));
    const docUrl = new URL(urls[whole.findIndex((r) => r.bytes.length === doc.length)].replace(/^https?:\/\/[^/]+/, server.url));
    const target = `${docUrl.pathname}${docUrl.search}`;
    const raw = await new Promise<Buffer>((resolve, reject) => {
      const got: Buffer[] = [];
      const socket = net.connect(Number(docUrl.port), docUrl.hostname, () => {
        // All three requests in one write: the second and third wait behind the first on the server.
        socket.write(`HEAD ${target} HTTP/1.1\r\nHost: x\r\n\r\nGET ${target} HTTP/1.1\r\nHost: x\r\n\r\nGET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      });
      socket.on('data', (c: Buffer) => got.push(c));
      socket.on('end', () => resolve(Buffer.concat(got)));
      socket.on('error', reject);
    });
    const responses: { status: number; length: number; body: Buffer }[] = [];
    let at = 0;
    for (const method of ['HEAD', 'GET', 'GET']) {
      const headEnd = raw.indexOf('\r\n\r\n', at);
      const head = raw.subarray(at, headEnd).toString('latin1');
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1]);
      const bodyStart = headEnd + 4;
      const body = method === 'HEAD' ? Buffer.alloc(0) : raw.subarray(bodyStart, bodyStart + length);
      responses.push({ status: Number(head.split(' ')[1]), length, body });
      at = bodyStart + body.length;
    }
    expect(at).toBe(raw.length); // nothing after the last body: the HEAD sent none
    expect(responses.map((r) => [r.status, r.length])).toEqual([
      [200, doc.length],
      [200, doc.length],
      [200, doc.length],
    ]);
    expect(sha256(responses[1].body)).toBe(sha256(doc));
    expect(sha256(responses[2].body)).toBe(sha256(doc));
  });

  it('never serves a blob altered at rest whole: the transfer is cut before its last 512 KiB, which wait for the tag', async () => {
    const { id, urls } = await captured(server, acme, doc, selfie);
    const row = (await db.query(`SELECT blob_key FROM artifacts WHERE session_id = $1 AND class = 'id_document_image'`, [id])).rows[0] as { blob_key: string };
    const file = blobFile(server.env.DATA_DIR!, row.blob_key);
    const altered = fs.readFileSync(file);
    altered[1000] ^= 1; // early in the file: AES-GCM streams on and finds it only at the tag, at the end
    fs.writeFileSync(file, altered);

    const served = await Promise.all(
      urls.map(async (u) => {
        const res = await fetch(u.replace(/^https?:\/\/[^/]+/, server.url));
        let received = 0;
        let cut = false;
        try {
          for await (const chunk of res.body!) received += (chunk as Uint8Array).length;
        } catch {
          cut = true;
        }
        return { status: res.status, length: Number(res.headers.get('content-length')), received, cut };
      }),
    );
    const forged = served.find((r) => r.length === doc.length)!;
    expect(forged.status).toBe(200); // the headers leave before the end is read
    expect(forged.cut).toBe(true);
    expect(forged.received).toBeLessThanOrEqual(doc.length - (doc.length % (512 * 1024)));
    const intact = served.find((r) => r.length === selfie.length)!;
    expect(intact).toMatchObject({ status: 200, received: selfie.length, cut: false });
  });

  it('stores nothing when an upload is refused: no row and no file', async () => {
    const s = (await http(server, 'POST', '/v1/verify/sessions', { key: acme.live_api_key, json: { flow_id: 'default', tier: 'T1' } })).body;
    const page = await openPage(server, s);
    expect((await pageCall(server, page, 'POST', 'start')).status).toBe(200);
    const files = () => fs.readdirSync(path.join(server.env.DATA_DIR!, 'vault'), { recursive: true }).filter((f) => /[0-9a-f]{64}$/.test(String(f))).length;
    const before = files();
    // Not a JPEG: refused at the sniff, mid-stream.
    expect((await upload(server, page, { class: 'selfie_image' }, Buffer.alloc(300_000, 1), 'image/jpeg')).status).toBe(415);
    // One selfie is the limit: the second one's blob is written, its row refused, the blob deleted.
    expect((await upload(server, page, { class: 'selfie_image' }, jpegBytes(50_000, 1), 'image/jpeg')).status).toBe(201);
    expect((await upload(server, page, { class: 'selfie_image' }, jpegBytes(50_000, 2), 'image/jpeg')).status).toBe(400);
    expect(files()).toBe(before + 1);
    expect(fs.readdirSync(path.join(server.env.DATA_DIR!, 'vault', 'tmp'))).toEqual([]);
  });
});

describe('vault migrate', () => {
  let server: TestServer;
  let db: Client;

  afterAll(async () => {
    await db?.end().catch(() => undefined);
    await server?.stop();
  });

  it('moves artifacts stored in the database to the filesystem, resumably, and they read the same', async () => {
    // Stored the way every artifact was before the blob store: bytea in artifact_blobs.
    server = await startServer(testEnv({ ...ENGINES_OFF, VAULT_STORE: 'postgres' }));
    const tenant = await createTenant(server, 'vault-migrate');
    db = quiet(await dbClient(server));
    const doc = jpegBytes(700_000, 3);
    const selfie = jpegBytes(90_000, 4);
    const { id, urls } = await captured(server, tenant, doc, selfie);
    const legacy = await db.query(`SELECT count(*)::int AS n FROM artifacts a JOIN artifact_blobs b ON b.artifact_id = a.id WHERE a.session_id = $1 AND a.blob_key IS NULL`, [id]);
    // The two captures, and what the checks derived.
    expect(legacy.rows[0].n).toBeGreaterThanOrEqual(2);

    // The operator switches the servers to the filesystem store: rows not yet moved still read.
    await server.stop();
    const env = { ...server.env, PORT: '0', VAULT_STORE: 'fs' };
    server = await startServer(env);
    db = await reconnected(db, server);
    expect((await Promise.all(urls.map((u) => download(server, u)))).map((r) => sha256(r.bytes)).sort()).toEqual([sha256(doc), sha256(selfie)].sort());

    const refused = await cli({ ...server.env, VAULT_STORE: 'fs' }, ['vault', 'migrate', '--to', 's3', '--json']);
    expect(refused.code).toBe(2);
    const moved = await cli(server.env, ['vault', 'migrate', '--to', 'fs', '--json']);
    expect(moved.code).toBe(0);
    expect(moved.json).toMatchObject({ to: 'fs', skipped: 0 });
    expect(moved.json!.moved).toBeGreaterThanOrEqual(2);
    const rows = (await db.query(`SELECT a.blob_key, (SELECT count(*)::int FROM artifact_blobs b WHERE b.artifact_id = a.id) AS bytea FROM artifacts a WHERE a.session_id = $1`, [id])).rows;
    for (const r of rows) {
      expect(r.bytea).toBe(0);
      expect(fs.existsSync(blobFile(server.env.DATA_DIR!, r.blob_key))).toBe(true);
    }
    expect((await Promise.all(urls.map((u) => download(server, u)))).map((r) => sha256(r.bytes)).sort()).toEqual([sha256(doc), sha256(selfie)].sort());

    // A second run finds nothing left to move.
    const again = await cli(server.env, ['vault', 'migrate', '--to', 'fs', '--json']);
    expect(again.json).toMatchObject({ moved: 0, skipped: 0 });
  });
});
