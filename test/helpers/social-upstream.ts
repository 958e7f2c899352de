import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type UpstreamCall = { method: string; path: string; authorization: string | undefined; body: string };

/**
 * A small social service speaking the data-rights contract of docs/data-rights.md ("The social
 * upstream"). Collections are generated as they are written, with back-pressure, so serving a
 * user with 100,000 posts costs this process no memory either. Every call is recorded.
 */
export class TestSocialUpstream {
  readonly calls: UpstreamCall[] = [];
  /** Posts per user id; other collections have `small` records each. */
  readonly posts = new Map<string, number>();
  small = 3;
  /** Answer every call with this status instead (an upstream outage). */
  failWith: number | null = null;
  /** Lines handed to the socket so far (back-pressure keeps this near what the reader has consumed). */
  linesWritten = 0;
  private server!: http.Server;
  url = '';

  static async start(opts: { token?: string } = {}): Promise<TestSocialUpstream> {
    const u = new TestSocialUpstream();
    u.server = http.createServer((req, res) => void u.handle(req, res, opts.token));
    await new Promise<void>((resolve) => u.server.listen(0, '127.0.0.1', resolve));
    u.url = `http://127.0.0.1:${(u.server.address() as AddressInfo).port}`;
    return u;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse, token: string | undefined): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = req.url ?? '/';
    this.calls.push({ method: req.method ?? '', path, authorization: req.headers.authorization, body: Buffer.concat(chunks).toString('utf8') });
    if (this.failWith) return void res.writeHead(this.failWith).end();
    if (token && req.headers.authorization !== `Bearer ${token}`) return void res.writeHead(401).end();
    const m = /^\/data-rights\/v1\/users\/([^/]+)\/(posts|comments|likes|follows|messages|erasure|objections)$/.exec(path);
    if (!m) return void res.writeHead(404).end();
    const [, rawUser, what] = m;
    const user = decodeURIComponent(rawUser);
    if (req.method === 'POST' && (what === 'erasure' || what === 'objections')) return void res.writeHead(204).end();
    if (req.method !== 'GET') return void res.writeHead(405).end();
    const count = what === 'posts' ? (this.posts.get(user) ?? 0) : this.small;
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    for (let i = 0; i < count; i++) {
      const line = `${JSON.stringify(record(what, user, i))}\n`;
      this.linesWritten++;
      if (!res.write(line)) await new Promise((resolve) => res.once('drain', resolve));
      if (res.destroyed) return;
    }
    res.end();
  }
}

function record(collection: string, user: string, i: number): Record<string, unknown> {
  const at = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();
  switch (collection) {
    case 'posts':
      return { id: `post_${i}`, author: user, text: `Post number ${i}: ${'lorem ipsum '.repeat(8)}`, created_at: at };
    case 'comments':
      return { id: `cmt_${i}`, author: user, post_id: `post_x${i}`, text: `Comment ${i}`, created_at: at };
    case 'likes':
      return { post_id: `post_y${i}`, liked_at: at };
    case 'follows':
      return { profile_id: `prof_${i}`, followed_at: at };
    default:
      return { id: `msg_${i}`, to: `prof_${i}`, text: `Message ${i}`, sent_at: at };
  }
}
