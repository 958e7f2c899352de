import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { Client } from 'pg';
import { http, HttpResult, TestServer } from './test-server';

/** A real (tiny, solid-colour) PNG, built here so tests need no image files. */
export function pngBytes(width = 4, height = 4, rgb: [number, number, number] = [200, 30, 30]): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Buffer) => {
    let c = 0xffffffff;
    for (const x of b) c = crcTable[(c ^ x) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const c = Buffer.alloc(4);
    c.writeUInt32BE(crc(td));
    return Buffer.concat([len, td, c]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const row = Buffer.concat([Buffer.from([0]), Buffer.concat(Array.from({ length: width }, () => Buffer.from(rgb)))]);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/**
 * JPEG-signed bytes of a given size: a JPEG start-of-image and JFIF header, then filler. The
 * vault checks types by their signature; decoding is the engines' business.
 */
export function jpegBytes(size = 2048, seed = 1): Buffer {
  const head = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]);
  const body = Buffer.alloc(Math.max(0, size - head.length - 2), seed & 0xff);
  return Buffer.concat([head, body, Buffer.from([0xff, 0xd9])]);
}

export const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

export type PageSession = { id: string; credential: string; hostedPath: string };

/** Opens the page credential the way the page does: from the hosted URL's token. */
export async function openPage(server: Pick<TestServer, 'url'>, session: { id: string; hosted_url: string }): Promise<PageSession> {
  const u = new URL(session.hosted_url);
  const r = await http(server, 'POST', `/v1/hosted/sessions/${session.id}/credentials`, { json: { token: u.searchParams.get('token') } });
  if (r.status !== 201) throw new Error(`credential: ${r.status} ${r.text}`);
  return { id: session.id, credential: r.body.credential, hostedPath: `${u.pathname}${u.search}` };
}

export async function pageCall(server: Pick<TestServer, 'url'>, page: PageSession, method: string, action: string, credential = page.credential): Promise<HttpResult> {
  return http(server, method, `/v1/hosted/sessions/${page.id}${action ? `/${action}` : ''}`, { headers: credential ? { authorization: `Bearer ${credential}` } : {} });
}

export async function upload(
  server: Pick<TestServer, 'url'>,
  page: PageSession,
  query: Record<string, string | number>,
  bytes: Buffer,
  contentType: string,
  credential: string | null = page.credential,
): Promise<HttpResult> {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  const headers: Record<string, string> = { 'content-type': contentType };
  if (credential) headers.authorization = `Bearer ${credential}`;
  const res = await fetch(`${server.url}/v1/hosted/sessions/${page.id}/artifacts?${qs}`, { method: 'POST', headers, body: new Uint8Array(bytes) });
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, headers: res.headers, body, text };
}

/**
 * `upload`, with the body held back: its first KiB is sent at once (the request has begun, its headers are
 * in), the rest only at `until` (epoch ms), as a client streaming a body it is still making would.
 */
export async function uploadHeldUntil(server: Pick<TestServer, 'url'>, page: PageSession, query: Record<string, string | number>, bytes: Buffer, contentType: string, until: number): Promise<HttpResult> {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(new Uint8Array(bytes.subarray(0, 1024)));
      await new Promise((r) => setTimeout(r, Math.max(0, until - Date.now())));
      controller.enqueue(new Uint8Array(bytes.subarray(1024)));
      controller.close();
    },
  });
  const headers = { 'content-type': contentType, authorization: `Bearer ${page.credential}` };
  const res = await fetch(`${server.url}/v1/hosted/sessions/${page.id}/artifacts?${qs}`, { method: 'POST', headers, body, duplex: 'half' } as RequestInit);
  const text = await res.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** The challenge's steps answered with `perStep` frames each, stamped inside each window as the page does. */
export async function answerChallenge(server: Pick<TestServer, 'url'>, page: PageSession, challenge: { steps: { nonce: string; opens_at: number; closes_at: number }[] }, perStep = 5): Promise<Buffer[]> {
  const sent: Buffer[] = [];
  for (const [i, step] of challenge.steps.entries()) {
    const wait = step.opens_at + 50 - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    for (let f = 0; f < perStep; f++) {
      const bytes = jpegBytes(1024 + f, i * 16 + f);
      const r = await upload(server, page, { class: 'selfie_video', step: i, nonce: step.nonce, captured_at: Math.min(Date.now(), step.closes_at - 1) }, bytes, 'image/jpeg');
      if (r.status !== 201) throw new Error(`frame: ${r.status} ${r.text}`);
      sent.push(bytes);
    }
  }
  return sent;
}

/** A client on the test server's database (the embedded one through its socket). */
export async function dbClient(server: Pick<TestServer, 'env'>): Promise<Client> {
  const db = new Client(server.env.DATABASE_URL ? { connectionString: server.env.DATABASE_URL } : { host: server.env.DATA_DIR, port: 5432, user: 'postgres', database: 'postgres' });
  await db.connect();
  return db;
}

/**
 * Drives a T1 session's page as its browser would: opens it, captures a document and a selfie, and
 * submits. Returns the page and the keep secret its submit was given ("Keep this verification").
 */
export async function captureAndSubmitT1(server: Pick<TestServer, 'url'>, session: { id: string; hosted_url: string }): Promise<{ page: PageSession; keepSecret: string }> {
  const page = await openPage(server, session);
  const step = async (r: Promise<HttpResult>, status: number) => {
    const out = await r;
    if (out.status !== status) throw new Error(`hosted page: ${out.status} ${out.text}`);
    return out;
  };
  await step(pageCall(server, page, 'POST', 'start'), 200);
  await step(upload(server, page, { class: 'id_document_image', side: 'data_page' }, jpegBytes(), 'image/jpeg'), 201);
  await step(upload(server, page, { class: 'selfie_image' }, jpegBytes(4096, 7), 'image/jpeg'), 201);
  const submitted = await step(pageCall(server, page, 'POST', 'submit'), 200);
  return { page, keepSecret: submitted.body.keep_secret as string };
}

/**
 * A test session's page choosing its outcome (docs/decisions.md D22), as the test page's buttons do: returns
 * the page and the keep secret the first choice is given, or null when the session's clock decided it
 * first (409), for the caller to try a fresh session.
 */
export async function chooseOnTestPage(server: Pick<TestServer, 'url'>, session: { id: string; hosted_url: string }, outcome: string): Promise<{ page: PageSession; keepSecret: string } | null> {
  const page = await openPage(server, session);
  const r = await http(server, 'POST', `/v1/hosted/sessions/${page.id}/test-outcome`, { headers: { authorization: `Bearer ${page.credential}` }, json: { outcome } });
  if (r.status === 409) return null;
  if (r.status !== 200) throw new Error(`test outcome: ${r.status} ${r.text}`);
  return { page, keepSecret: r.body.keep_secret as string };
}
