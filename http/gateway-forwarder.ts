import http from 'node:http';
import https from 'node:https';
import type { Request, Response } from 'express';
import { sendError } from './error-response';
import { forwardedRequestHeaders, PASSED_THROUGH_ANSWER_HEADERS, passedAnswerHeaders } from './gateway-headers';
import type { RequestBody } from './gateway-request-framing';

/** What the router has decided about one request before it goes upstream. */
export type Forwarding = {
  /** The normalised path and query (http/gateway-upstream-path.ts). */
  path: string;
  /** The body as http/gateway-request-framing.ts read it. */
  body: RequestBody;
  connectionNames: string[];
  /** Fields the gateway adds: Service-Actor, request-id. */
  headers: Record<string, string>;
};

/**
 * Sends gateway requests to the upstream over a pool of kept-alive connections, each request framed
 * by the gateway: its own Host, and a Content-Length (or chunked coding) it sets from what Node's
 * parser read, never the caller's framing fields. Bodies and answers are streamed with back-pressure,
 * never buffered whole. A connection that carried a request whose body did not end as framed (the
 * caller went away, the upstream failed) is destroyed, never handed to the next request. The answer
 * is framed by the gateway too: the upstream's status and end-to-end fields only.
 * Failures before the answer starts are error bodies: 502 upstream_unreachable, 504 upstream_timeout;
 * after, the caller's connection is cut.
 */
export class GatewayForwarder {
  private readonly target: URL;
  private readonly agent: http.Agent;
  private readonly request: typeof http.request;
  /** The upstream URL's own path (`https://social.internal/base` sends `/base/v1/social/...`). */
  private readonly basePath: string;

  constructor(
    upstreamUrl: string,
    private readonly timeoutMs: number,
  ) {
    this.target = new URL(upstreamUrl);
    const secure = this.target.protocol === 'https:';
    // Kept-alive connections to the upstream: a new TCP connection per call would be most of the overhead.
    this.agent = secure ? new https.Agent({ keepAlive: true, maxSockets: 256 }) : new http.Agent({ keepAlive: true, maxSockets: 256 });
    this.request = secure ? https.request : http.request;
    this.basePath = this.target.pathname.replace(/\/+$/, '');
  }

  forward(req: Request, res: Response, f: Forwarding): void {
    // The caller went away while it was authenticated: nothing to send, and no half-sent request to leave upstream.
    if (res.destroyed || (req.destroyed && !req.complete)) return;
    // Raw lines, written by http.request as given (each still checked for invalid characters): no header object per request.
    const headers = forwardedRequestHeaders(req.rawHeaders, f.connectionNames);
    headers.push('host', this.target.host);
    for (const name in f.headers) headers.push(name, f.headers[name]);
    if (f.body.kind === 'length') headers.push('content-length', String(f.body.bytes));
    else if (f.body.kind === 'chunked') headers.push('transfer-encoding', 'chunked');
    else if (!BODYLESS_UPSTREAM.has(req.method)) headers.push('content-length', '0');

    const upstream = this.request({
      agent: this.agent,
      protocol: this.target.protocol,
      hostname: this.target.hostname,
      port: this.target.port,
      method: req.method,
      path: this.basePath + f.path,
      headers,
    });
    let timedOut = false;
    // Silence for this long (before or during the answer) is a timeout: 504 if nothing was sent yet.
    upstream.setTimeout(this.timeoutMs, () => {
      timedOut = true;
      upstream.destroy();
    });
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      if (res.headersSent) return void res.destroy();
      if (timedOut) return sendError(res, 'upstream_timeout', `The upstream did not answer within ${this.timeoutMs / 1000} s`);
      req.log?.warn({ code: err.code }, 'gateway upstream unreachable');
      sendError(res, 'upstream_unreachable', 'The upstream could not be reached');
    });
    upstream.on('response', (answer: http.IncomingMessage) => this.answer(req, res, answer));

    // The caller went away (its connection closed before the answer ended): that upstream connection is never reused.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });

    if (f.body.kind === 'none') return void upstream.end();
    // A body that ended short of its framing: the same. (A request with no body was complete before it got here.)
    req.on('close', () => {
      if (!req.complete) upstream.destroy();
    });
    sendBody(req, upstream, f.body.kind === 'length' ? f.body.bytes : Infinity);
  }

  private answer(req: Request, res: Response, answer: http.IncomingMessage): void {
    res.statusCode = answer.statusCode ?? 502;
    for (const [name, value] of Object.entries(passedAnswerHeaders(answer.rawHeaders, (n) => res.hasHeader(n)))) res.setHeader(name, value!);
    for (const [name, value] of Object.entries(PASSED_THROUGH_ANSWER_HEADERS)) res.setHeader(name, value);
    // The length Node's parser framed the upstream's answer by (none when it was chunked or ran to the close): Node chunks the rest.
    const length = answer.headers['content-length'];
    if (answer.headers['transfer-encoding'] === undefined && length !== undefined && /^\d+$/.test(length)) res.setHeader('content-length', length);
    // An answer cut short by the upstream cuts the caller's connection: it must not look complete.
    answer.on('close', () => {
      if (!answer.complete) res.destroy();
    });
    answer.on('error', () => res.destroy());
    if (req.method === 'HEAD') {
      answer.resume();
      answer.on('end', () => res.end());
      return;
    }
    answer.pipe(res);
  }
}

/** Methods sent upstream without a Content-Length when they carry no body (every other one gets `content-length: 0`). */
const BODYLESS_UPSTREAM = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

/**
 * Copies the caller's body to the upstream with back-pressure, never more than `limit` bytes: Node's
 * parser already stops the body at the caller's Content-Length, and this keeps it so should anything
 * change; a body that would end anywhere but at the length the gateway declared ends that upstream connection.
 */
function sendBody(req: Request, upstream: http.ClientRequest, limit: number): void {
  let sent = 0;
  req.on('data', (chunk: Buffer) => {
    sent += chunk.length;
    if (sent > limit) return void upstream.destroy(new Error('request body longer than its Content-Length'));
    if (!upstream.write(chunk)) req.pause();
  });
  upstream.on('drain', () => req.resume());
  req.on('end', () => (sent === limit || limit === Infinity ? upstream.end() : upstream.destroy(new Error('request body shorter than its Content-Length'))));
}
