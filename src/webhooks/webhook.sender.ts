import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { WebhookTarget } from './ssrf.guard';

export type SendResult = {
  statusCode: number | null;
  headers: http.IncomingHttpHeaders;
  /** At most `maxBodyBytes` of the response, for the log. */
  body: string;
  durationMs: number;
  error: string | null;
};

export type SendRequest = {
  target: WebhookTarget;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  maxBodyBytes: number;
};

/**
 * Keep-alive agents, one per (scheme, host name, pinned address, port): a socket is only ever reused
 * for the address the SSRF guard approved for that name.
 */
const agents = new Map<string, http.Agent>();
const MAX_AGENTS = 1_000;

function agentFor(target: WebhookTarget, lookup: LookupFunction): http.Agent {
  const { url, address } = target;
  const key = `${url.protocol}|${url.hostname}|${address}|${url.port}`;
  let agent = agents.get(key);
  if (!agent) {
    if (agents.size >= MAX_AGENTS) {
      for (const a of agents.values()) a.destroy();
      agents.clear();
    }
    const options = { keepAlive: true, maxSockets: 64, maxFreeSockets: 16, lookup };
    agent = url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    agents.set(key, agent);
  }
  return agent;
}

/**
 * One POST. The connection goes to the address the SSRF guard checked (a DNS answer that changed
 * since cannot redirect it); TLS still verifies the URL's host name. Redirects are not followed:
 * a 3xx is just a failed attempt. The whole exchange must finish within `timeoutMs`.
 */
export function sendWebhook(req: SendRequest): Promise<SendResult> {
  const started = performance.now();
  const { url, address, family } = req.target;
  const pinned: LookupFunction = (_host, options, cb) => {
    if ((options as { all?: boolean }).all) (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else cb(null, address, family);
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    let request: http.ClientRequest;
    const finish = (r: Omit<SendResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...r, durationMs: Math.round(performance.now() - started) });
    };
    const send = (mayRetryStaleSocket: boolean) => {
      request = client.request(
        url,
        {
          method: 'POST',
          lookup: pinned,
          agent: agentFor(req.target, pinned),
          headers: { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)), 'user-agent': 'Service-Webhooks/1.0' },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let kept = 0;
          const done = (truncated: boolean) => {
            finish({ statusCode: res.statusCode ?? null, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), error: null });
            if (truncated) res.destroy(); // the rest of a large body is of no use; a complete one leaves the socket to keep-alive
          };
          res.on('data', (chunk: Buffer) => {
            if (kept < req.maxBodyBytes) {
              const part = chunk.subarray(0, req.maxBodyBytes - kept);
              chunks.push(part);
              kept += part.length;
            }
            if (kept >= req.maxBodyBytes) done(true);
          });
          res.on('end', () => done(false));
          res.on('error', (err) => finish({ statusCode: res.statusCode ?? null, headers: res.headers, body: '', error: err.message }));
        },
      );
      const sentOn = request;
      sentOn.on('error', (err: NodeJS.ErrnoException) => {
        // A kept-alive socket the receiver closed while it sat idle: when this process was too busy to see the close
        // (a loaded machine), the POST goes out on it and the receiver resets it unread. Node's documented remedy is
        // to send again on a new connection, once, within the same deadline (the receiver never saw this one).
        if (mayRetryStaleSocket && sentOn.reusedSocket && err.code === 'ECONNRESET' && !settled) return send(false);
        finish({ statusCode: null, headers: {}, body: '', error: err.code ? `${err.code}: ${err.message}` : err.message });
      });
      sentOn.end(req.body);
    };
    const timer = setTimeout(() => {
      // After a stall of this process's event loop (a loaded machine), timers run before the sockets are read: an
      // answer that arrived in time is waiting unread. setImmediate runs after the next read, so it counts first.
      setImmediate(() => {
        if (settled) return;
        finish({ statusCode: null, headers: {}, body: '', error: `timed out after ${req.timeoutMs} ms` });
        request.destroy();
      });
    }, req.timeoutMs);
    send(true);
  });
}
