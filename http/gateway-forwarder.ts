import { PassThrough } from 'node:stream';
import type { Request, Response } from 'express';
import { Pool, type Dispatcher } from 'undici';
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
 * Sends gateway requests to the upstream over undici's pool of kept-alive connections (leaner per
 * request than `node:http`'s client: docs/benchmarks.md, "Gateway proxy"), each request framed by the
 * gateway: its own Host, and a Content-Length (or chunked coding) it sets from what Node's parser read,
 * never the caller's framing fields; undici refuses to send a body longer or shorter than that length.
 * Bodies and answers are streamed with back-pressure, never buffered whole. A connection that carried a
 * request whose body did not end as framed (the caller went away, the upstream failed) is destroyed by
 * undici, never handed to the next request. The answer is framed by the gateway too: the upstream's
 * status and end-to-end fields only.
 * Failures before the answer starts are error bodies: 502 upstream_unreachable, 504 upstream_timeout;
 * after, the caller's connection is cut.
 */
export class GatewayForwarder {
  private readonly pool: Pool;
  private readonly host: string;
  /** The upstream URL's own path (`https://social.internal/base` sends `/base/v1/social/...`). */
  private readonly basePath: string;

  constructor(
    upstreamUrl: string,
    private readonly timeoutMs: number,
  ) {
    const target = new URL(upstreamUrl);
    this.host = target.host;
    this.basePath = target.pathname.replace(/\/+$/, '');
    // Kept-alive connections to the upstream: a new TCP connection per call would be most of the overhead.
    // Silence for timeoutMs while connecting, before the answer's head or between its chunks is a timeout.
    this.pool = new Pool(target.origin, {
      connections: 256,
      pipelining: 1,
      connect: { timeout: timeoutMs },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
  }

  forward(req: Request, res: Response, f: Forwarding): void {
    // The caller went away while it was authenticated: nothing to send, and no half-sent request to leave upstream.
    if (res.destroyed || (req.destroyed && !req.complete)) return;
    // Raw lines, each checked by undici for invalid characters: no header object per request.
    const headers = forwardedRequestHeaders(req.rawHeaders, f.connectionNames);
    headers.push('host', this.host);
    for (const name in f.headers) headers.push(name, f.headers[name]);
    // A content-length undici checks the body against; with none, a streamed body goes chunked.
    if (f.body.kind === 'length') headers.push('content-length', String(f.body.bytes));
    else if (f.body.kind === 'none' && !BODYLESS_UPSTREAM.has(req.method)) headers.push('content-length', '0');

    const exchange = new Exchange(req, res, this.timeoutMs);
    // The caller went away (its connection closed before the answer ended): that upstream connection is never reused.
    res.on('close', () => {
      if (!res.writableFinished) exchange.cancel();
    });
    let body: PassThrough | null = null;
    if (f.body.kind !== 'none') {
      // Through a stream of the gateway's own: undici destroys the body it was given when the upstream fails,
      // and destroying the caller's request would cut its connection before it gets the 502.
      body = new PassThrough();
      req.pipe(body);
      // A body that ended short of its framing: the same. (A request with no body was complete before it got here.)
      req.on('close', () => {
        if (!req.complete) exchange.cancel();
      });
    }
    this.pool.dispatch({ path: this.basePath + f.path, method: req.method as Dispatcher.HttpMethod, headers, body }, exchange);
  }
}

/** Methods sent upstream without a Content-Length when they carry no body (every other one gets `content-length: 0`). */
const BODYLESS_UPSTREAM = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

/** Errors of an upstream that stayed silent for the timeout: 504, not 502. */
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/**
 * One request's exchange with the upstream, as undici's dispatch handler: the answer's head becomes the
 * caller's, its chunks are written to the caller, and undici stops reading the upstream while the
 * caller's socket is full (back-pressure), resuming on `drain`.
 */
class Exchange implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | null = null;
  private cancelled = false;
  private answered = false;

  constructor(
    private readonly req: Request,
    private readonly res: Response,
    private readonly timeoutMs: number,
  ) {}

  /** Ends the upstream request and destroys its connection (undici's abort), now or as soon as it is sent. */
  cancel(): void {
    this.cancelled = true;
    this.controller?.abort(new Error('the caller went away'));
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.cancelled) controller.abort(new Error('the caller went away'));
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number): void {
    // 1xx interim answers (103 Early Hints): the gateway's caller gets the final answer only.
    if (statusCode < 200) return;
    this.answered = true;
    const res = this.res;
    // The head as the upstream sent it (undici's parsed object merges repeated fields and loses the Connection names' order).
    const raw = (controller.rawHeaders as Buffer[]).map((b) => b.toString('latin1'));
    res.statusCode = statusCode;
    const passed = passedAnswerHeaders(raw, (n) => res.hasHeader(n));
    for (const name in passed) res.setHeader(name, passed[name]!);
    for (const [name, value] of Object.entries(PASSED_THROUGH_ANSWER_HEADERS)) res.setHeader(name, value);
    // The length undici's parser frames the upstream's answer by (none when it is chunked or runs to the close): Node chunks the rest.
    const length = lengthOf(raw);
    if (length !== null) res.setHeader('content-length', length);
    res.on('drain', () => controller.resume());
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (!this.res.write(chunk)) controller.pause();
  }

  onResponseEnd(): void {
    this.res.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error & { code?: string }): void {
    const res = this.res;
    // An answer cut short (the upstream closed, went silent or the caller left): it must not look complete.
    if (this.answered || res.headersSent) return void res.destroy();
    if (this.cancelled || res.destroyed) return;
    if (err.code !== undefined && TIMEOUT_CODES.has(err.code)) return sendError(res, 'upstream_timeout', `The upstream did not answer within ${this.timeoutMs / 1000} s`);
    this.req.log?.warn({ code: err.code }, 'gateway upstream unreachable');
    sendError(res, 'upstream_unreachable', 'The upstream could not be reached');
  }
}

/** The upstream's Content-Length when it framed the answer by one (no Transfer-Encoding, one number), else null. */
function lengthOf(raw: readonly string[]): string | null {
  let length: string | null = null;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (name === 'transfer-encoding') return null;
    if (name === 'content-length') {
      if (length !== null || !/^\d+$/.test(raw[i + 1])) return null;
      length = raw[i + 1];
    }
  }
  return length;
}
