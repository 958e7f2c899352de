import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

/** One request as the upstream parsed it off its socket, with the tenant its Service-Actor names. */
export type Received = {
  method: string;
  url: string;
  /** `tenant` of the Service-Actor JWT's payload (undecoded signature: the gateway tests verify it elsewhere); null without one. */
  tenant: string | null;
  headers: http.IncomingHttpHeaders;
  bodyBytes: number;
  /** The body arrived whole (false: the connection ended mid-body). */
  complete: boolean;
  /** The gateway's end of the upstream connection (its port): which pooled connection carried the request. */
  connection: number;
};

/**
 * A social upstream for the gateway's smuggling tests: records every request it parses, the
 * moment its headers arrive (so a request whose body never ends is recorded too), and answers
 * `{ path, tenant }` from what it parsed, so a caller can tell whose request its answer belongs to.
 * Connections are kept alive for a long time: the gateway's pool reuses them across callers.
 * `answer` may replace the default answer for some paths.
 */
export class RecordingUpstream {
  readonly received: Received[] = [];
  url = '';
  answer: (req: http.IncomingMessage, res: http.ServerResponse, seen: Received) => boolean = () => false;
  private readonly server = http.createServer({ keepAliveTimeout: 120_000 }, (req, res) => this.handle(req, res));

  static async start(): Promise<RecordingUpstream> {
    const u = new RecordingUpstream();
    await new Promise<void>((resolve) => u.server.listen(0, '127.0.0.1', resolve));
    u.url = `http://127.0.0.1:${(u.server.address() as AddressInfo).port}`;
    return u;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const seen: Received = { method: req.method!, url: req.url!, tenant: tenantOf(req.headers['service-actor']), headers: req.headers, bodyBytes: 0, complete: false, connection: req.socket.remotePort! };
    this.received.push(seen);
    req.on('data', (c: Buffer) => (seen.bodyBytes += c.length));
    req.on('end', () => {
      seen.complete = true;
      if (this.answer(req, res, seen)) return;
      const body = JSON.stringify({ path: req.url, tenant: seen.tenant });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  }
}

function tenantOf(jwt: string | string[] | undefined): string | null {
  if (typeof jwt !== 'string') return null;
  try {
    return (JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()) as { tenant: string | null }).tenant;
  } catch {
    return null;
  }
}

/** What a raw exchange gave back: the bytes of the server's first answer, its status code and its JSON body. */
export type RawAnswer = { raw: string; status: number | null; body: Record<string, unknown> | null };

/**
 * Sends `bytes` exactly as given on a new connection, for framing a client library would refuse to
 * send, and collects the first answer: until its Content-Length or last chunk (no body after a HEAD),
 * or until the server closes. `cutOff`: half-close the connection after the bytes instead (a client
 * that goes away mid-body; Node's server then abandons the request); `cutOffAfter`: the same, once that settles.
 */
export function rawExchange(port: number, bytes: string | Buffer, opts: { cutOff?: boolean; cutOffAfter?: Promise<unknown> } = {}): Promise<RawAnswer> {
  const head = typeof bytes === 'string' ? bytes.slice(0, 8) : bytes.subarray(0, 8).toString('latin1');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const socket = net.connect(port, '127.0.0.1', () => {
      if (opts.cutOff) return void socket.end(bytes);
      socket.write(bytes);
      void opts.cutOffAfter?.then(() => socket.end());
    });
    const finish = () => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(parseAnswer(Buffer.concat(chunks).toString('latin1')));
    };
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      if (answerComplete(Buffer.concat(chunks).toString('latin1'), head.startsWith('HEAD '))) finish();
    });
    socket.on('close', finish);
    socket.on('error', () => undefined); // a reset ends in 'close' too
  });
}

function answerComplete(raw: string, toHead: boolean): boolean {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const headers = raw.slice(0, end).toLowerCase();
  if (toHead || /^http\/1\.1 (1\d\d|204|304)/.test(headers)) return true;
  const length = /\r\ncontent-length: *(\d+)/.exec(headers);
  if (length) return Buffer.byteLength(raw.slice(end + 4), 'latin1') >= Number(length[1]);
  if (/\r\ntransfer-encoding: *chunked/.test(headers)) return raw.endsWith('\r\n0\r\n\r\n');
  return false; // framed by the close
}

function parseAnswer(raw: string): RawAnswer {
  const status = /^HTTP\/1\.1 (\d{3})/.exec(raw);
  let body: Record<string, unknown> | null = null;
  const start = raw.indexOf('\r\n\r\n');
  const chunked = /\r\ntransfer-encoding: *chunked/i.test(raw.slice(0, start));
  try {
    body = start >= 0 ? (JSON.parse(chunked ? dechunk(raw.slice(start + 4)) : raw.slice(start + 4)) as Record<string, unknown>) : null;
  } catch {
    /* not JSON */
  }
  return { raw, status: status ? Number(status[1]) : null, body };
}

function dechunk(raw: string): string {
  let out = '';
  for (let at = 0; ; ) {
    const eol = raw.indexOf('\r\n', at);
    const size = parseInt(raw.slice(at, eol), 16);
    if (!(size > 0)) return out;
    out += raw.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
}
