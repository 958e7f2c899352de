import { RecordingUpstream, rawExchange, type RawAnswer } from '../helpers/recording-upstream';
import { createTenant, startServer, testEnv, type Tenant, type TestServer } from '../helpers/test-server';

/**
 * Request smuggling through the gateway (docs/security.md, issue 40 finding 1). Tenant A sends, on a
 * raw socket, requests whose framing a proxy could read differently from its upstream; tenant B then
 * makes an ordinary call, which the gateway's keep-alive pool sends on the same upstream connection.
 * The upstream (a local node:http server) records every request it parses with the tenant of its
 * Service-Actor: it must have seen exactly the requests the clients made, each with its own sender's
 * tenant, and B's answer must be B's.
 */
describe('the gateway refuses ambiguous framing and frames every upstream request itself', () => {
  let upstream: RecordingUpstream;
  let server: TestServer;
  let a: Tenant;
  let b: Tenant;
  /** Every request a client made: path -> the tenant that sent it. */
  const made = new Map<string, string>();

  beforeAll(async () => {
    upstream = await RecordingUpstream.start();
    server = await startServer(testEnv({ SOCIAL_UPSTREAM_URL: upstream.url, RATE_LIMIT_ENABLED: 'false' }));
    [a, b] = await Promise.all([createTenant(server, 'Tenant A'), createTenant(server, 'Tenant B')]);
  });
  afterAll(async () => {
    await server?.stop();
    await upstream?.close();
  });

  /** A request the upstream parsed that no client made, or made by another tenant than the one its Service-Actor names. */
  const foreign = (since = 0) => upstream.received.slice(since).filter((r) => made.get(r.url) !== r.tenant);

  /** B's ordinary call, through fetch's own keep-alive pool; its answer must be the upstream's answer to it. */
  const callAsB = async (path: string): Promise<void> => {
    made.set(path, b.tenant_id);
    const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${b.test_api_key}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ path, tenant: b.tenant_id });
  };

  /** A's raw request: the request line, Host and A's key, then `rest` (further headers, the blank line, a body). */
  const asA = (method: string, path: string, rest: string): string => {
    made.set(path, a.tenant_id);
    return `${method} ${path} HTTP/1.1\r\nHost: gateway.test\r\nAuthorization: Bearer ${a.test_api_key}\r\n${rest}`;
  };

  /** A request for the upstream hidden in A's body, left open so that the next request on the socket (B's) would complete it. */
  const hidden = (path: string) => `GET ${path} HTTP/1.1\r\nHost: upstream.test\r\nX-Swallow: `;
  const chunked = (body: string) => `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;

  /** The smuggling attempts, each a function of a unique suffix (the 1,000-request run uses them all). */
  const attempts: { name: string; request: (n: string) => string; refused: boolean; cutOff?: boolean }[] = [
    { name: 'a GET with a chunked body holding a request', refused: true, request: (n) => asA('GET', `/v1/social/a/get-chunked-${n}`, `Transfer-Encoding: chunked\r\n\r\n${chunked(hidden(`/v1/social/smuggled/${n}`))}`) },
    {
      name: 'a GET whose Connection header names content-length',
      refused: true,
      request: (n) => {
        const body = `GET /v1/social/smuggled/${n} HTTP/1.1\r\nHost: upstream.test\r\n\r\n`;
        return asA('GET', `/v1/social/a/connection-cl-${n}`, `Connection: keep-alive, content-length\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      },
    },
    {
      name: 'a POST whose Connection header names content-length',
      refused: true,
      request: (n) => {
        const body = hidden(`/v1/social/smuggled/${n}`);
        return asA('POST', `/v1/social/a/post-connection-cl-${n}`, `Connection: keep-alive, content-length\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      },
    },
    { name: 'Connection naming host', refused: true, request: (n) => asA('GET', `/v1/social/a/connection-host-${n}`, 'Connection: keep-alive, host\r\n\r\n') },
    { name: 'Connection naming authorization and service-actor', refused: true, request: (n) => asA('GET', `/v1/social/a/connection-actor-${n}`, 'Connection: authorization, service-actor\r\n\r\n') },
    { name: 'Transfer-Encoding and Content-Length together', refused: true, request: (n) => asA('POST', `/v1/social/a/te-cl-${n}`, `Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n${chunked(hidden(`/v1/social/smuggled/${n}`))}`) },
    { name: 'Transfer-Encoding folded onto a second line (obs-fold)', refused: true, request: (n) => asA('POST', `/v1/social/a/te-fold-${n}`, `Transfer-Encoding:\r\n chunked\r\n\r\n${chunked(hidden(`/v1/social/smuggled/${n}`))}`) },
    { name: 'Transfer-Encoding twice', refused: true, request: (n) => asA('POST', `/v1/social/a/te-twice-${n}`, `Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n${chunked(hidden(`/v1/social/smuggled/${n}`))}`) },
    { name: 'Transfer-Encoding: chunked, chunked', refused: true, request: (n) => asA('POST', `/v1/social/a/te-list-${n}`, `Transfer-Encoding: chunked, chunked\r\n\r\n${chunked(hidden(`/v1/social/smuggled/${n}`))}`) },
    { name: 'Transfer-Encoding: gzip, chunked', refused: true, request: (n) => asA('POST', `/v1/social/a/te-gzip-${n}`, `Transfer-Encoding: gzip, chunked\r\n\r\n${chunked(hidden(`/v1/social/smuggled/${n}`))}`) },
    { name: 'a DELETE with a body', refused: true, request: (n) => asA('DELETE', `/v1/social/a/delete-body-${n}`, `Content-Length: 2\r\n\r\n{}`) },
    { name: 'a HEAD with a chunked body', refused: true, request: (n) => asA('HEAD', `/v1/social/a/head-chunked-${n}`, `Transfer-Encoding: chunked\r\n\r\n${chunked(hidden(`/v1/social/smuggled/${n}`))}`) },
    { name: 'an OPTIONS with a body', refused: true, request: (n) => asA('OPTIONS', `/v1/social/a/options-body-${n}`, `Content-Length: 2\r\n\r\n{}`) },
    // Cut off: the upstream may see A's request begin (it is A's), never anything after it on that connection.
    { name: 'a POST cut off before its Content-Length', refused: false, cutOff: true, request: (n) => asA('POST', `/v1/social/a/cut-cl-${n}`, `Content-Length: 400\r\n\r\n${hidden(`/v1/social/smuggled/${n}`)}`) },
    { name: 'a chunked POST cut off inside a chunk', refused: false, cutOff: true, request: (n) => asA('POST', `/v1/social/a/cut-chunk-${n}`, `Transfer-Encoding: chunked\r\n\r\n400\r\n${hidden(`/v1/social/smuggled/${n}`)}`) },
  ];

  const expectRefused = (answer: RawAnswer, toHead: boolean) => {
    expect(answer.status).toBe(400);
    if (!toHead) expect((answer.body?.error as { code?: string } | undefined)?.code).toBe('invalid_request'); // a HEAD answer has no body
    // The connection is closed after the refusal, whatever the client said it wanted.
    expect(answer.raw.toLowerCase()).toContain('connection: close');
  };

  it.each(attempts.map((t) => [t.name, t] as const))("%s: refused or abandoned, and tenant B's next call on the same upstream pool is B's alone", async (_name, attempt) => {
    const since = upstream.received.length;
    await callAsB(`/v1/social/b/before-${made.size}`); // one open upstream connection in the gateway's pool
    const request = attempt.request(`one-${made.size}`);
    // A cut-off request is cut once its start has reached the upstream: the gateway is then mid-body on a pooled connection.
    const started = async () => {
      for (let i = 0; i < 1200 && !upstream.received.slice(since).some((r) => r.tenant === a.tenant_id); i++) await new Promise((r) => setTimeout(r, 50)); // up to 60 s
    };
    const answer = await rawExchange(server.port, request, attempt.cutOff ? { cutOffAfter: started() } : {});
    if (attempt.refused) expectRefused(answer, request.startsWith('HEAD '));
    await callAsB(`/v1/social/b/after-${made.size}`);
    expect(foreign(since)).toEqual([]);
    const [before, ...rest] = upstream.received.slice(since);
    const after = rest.at(-1)!;
    if (attempt.refused) {
      expect(rest).toEqual([after]); // nothing of A's went upstream
      expect(after.connection).toBe(before.connection); // B's next call went on the same pooled connection
    } else {
      // A's cut-off request went on the pooled connection, ended there unfinished, and that connection was not reused.
      expect(rest).toHaveLength(2);
      expect(rest[0]).toMatchObject({ tenant: a.tenant_id, complete: false, connection: before.connection });
      expect(after.connection).not.toBe(before.connection);
    }
  });

  it('sends a chunked POST body that looks like a request to the upstream as the body of A\'s one request', async () => {
    const since = upstream.received.length;
    const body = `GET /v1/social/smuggled/body HTTP/1.1\r\nHost: upstream.test\r\n\r\n`;
    const answer = await rawExchange(server.port, asA('POST', '/v1/social/a/chunked-body', `Content-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n${chunked(body)}`));
    expect(answer.status).toBe(200);
    await callAsB('/v1/social/b/after-chunked-body');
    const got = upstream.received.find((r) => r.url === '/v1/social/a/chunked-body')!;
    expect(got).toMatchObject({ method: 'POST', tenant: a.tenant_id, bodyBytes: body.length, complete: true });
    expect(foreign(since)).toEqual([]);
  });

  it("lets no smuggled request through in 1,000 requests: A's attempts mixed with B's calls, 8 at a time", async () => {
    const before = upstream.received.length;
    const bAnswers: { path: string; status: number; body: unknown }[] = [];
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < 1000; i = next++) {
        if (i % 2 === 0) {
          const attempt = attempts[(i / 2) % attempts.length];
          const answer = await rawExchange(server.port, attempt.request(`run-${i}`), { cutOff: attempt.cutOff });
          if (attempt.refused) expect(answer.status).toBe(400);
        } else {
          const path = `/v1/social/b/run-${i}`;
          made.set(path, b.tenant_id);
          const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${b.test_api_key}` } });
          bAnswers.push({ path, status: res.status, body: await res.json() });
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    expect(foreign(before)).toEqual([]); // 0 requests other than those the clients made
    const run = upstream.received.slice(before);
    expect(run.filter((r) => r.tenant === b.tenant_id)).toHaveLength(500); // each of B's once
    expect(bAnswers.filter((x) => x.status !== 200 || JSON.stringify(x.body) !== JSON.stringify({ path: x.path, tenant: b.tenant_id }))).toEqual([]);
  });
});
