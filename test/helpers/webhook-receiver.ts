import http from 'node:http';

export type Received = { path: string; headers: http.IncomingHttpHeaders; body: string; at: number };
export type Reply = { status: number; headers?: Record<string, string>; body?: string; delayMs?: number; hold?: boolean };
/**
 * verifyServiceSignature's clock set to when the request arrived, as a receiver checks it: the tolerance then bounds
 * the sender's clock, not how long after the delivery a loaded test machine reads it.
 */
export const onReceipt = (r: Pick<Received, 'at'>): { nowSeconds: number } => ({ nowSeconds: Math.floor(r.at / 1000) });
/** Decides the reply to the n-th request (1-based) on one path. */
export type Behaviour = (n: number, req: Received) => Reply;

/** A real local HTTP receiver: records every request with its raw body and answers per path. */
export class WebhookReceiver {
  readonly received: Received[] = [];
  private readonly behaviours = new Map<string, Behaviour>();
  private readonly held = new Set<http.ServerResponse>();
  private server!: http.Server;
  port = 0;

  static async start(): Promise<WebhookReceiver> {
    const r = new WebhookReceiver();
    r.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const rec: Received = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
        r.received.push(rec);
        const n = r.received.filter((x) => x.path === rec.path).length;
        const reply: Reply = (r.behaviours.get(rec.path) ?? (() => ({ status: 200, body: 'ok' })))(n, rec);
        if (reply.hold) {
          r.held.add(res);
          return;
        }
        setTimeout(() => {
          if (res.destroyed) return;
          res.writeHead(reply.status, reply.headers ?? {});
          res.end(reply.body ?? '');
        }, reply.delayMs ?? 0);
      });
    });
    await new Promise<void>((resolve) => r.server.listen(0, '127.0.0.1', resolve));
    r.port = (r.server.address() as { port: number }).port;
    return r;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  on(path: string, behaviour: Behaviour): void {
    this.behaviours.set(path, behaviour);
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    for (const res of this.held) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
