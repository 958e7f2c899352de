/**
 * A worker thread of the subscriptions benchmark, holding one share of the subscriber sockets.
 *
 * 10,000 sockets read by the benchmark's own single thread make the client's receive work part of
 * the measured latency: the last socket's message waits behind the parsing of the 9,999 before it,
 * however fast the server wrote it. Each worker owns its sockets, stamps every receipt with
 * `performance.timeOrigin + performance.now()` (the wall clock at high resolution, comparable
 * across threads and with the commit-side timestamps) and hands the records to the coordinator.
 *
 * Requests from the coordinator are `{ call, op, ... }`; every answer is `{ call, result }` or
 * `{ call, error }`.
 */
import { parentPort } from 'node:worker_threads';
import WebSocket from 'ws';

export type Receipt = { sessionId: string; status: string; createdAt: string; at: number };
export type Match = { status?: string; sessionId?: string };

export type ClientRequest =
  | { op: 'open'; urls: string[]; key: string; sessions: string[]; indices: number[]; concurrency: number; timeoutMs: number }
  | { op: 'subscribeAll'; id: string | null }
  | { op: 'waitAll'; match: Match; timeoutMs: number }
  | { op: 'receipts'; match: Match }
  | { op: 'close' };

/** One subscriber connection, lean: it records the receipt time of every `next` by session id and status. */
class Subscriber {
  ws!: WebSocket;
  received: Receipt[] = [];
  private subId = 0;

  static async open(url: string, key: string): Promise<Subscriber> {
    const s = new Subscriber();
    s.ws = new WebSocket(`${url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
    await new Promise<void>((resolve, reject) => {
      s.ws.once('error', reject);
      s.ws.once('open', () => s.ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${key}` } })));
      s.ws.on('message', (data) => {
        const at = performance.timeOrigin + performance.now();
        const m = JSON.parse(String(data)) as { type: string; payload?: any };
        if (m.type === 'connection_ack') resolve();
        else if (m.type === 'next') {
          const e = m.payload?.data?.sessionStatusChanged;
          if (e) s.received.push({ sessionId: e.id, status: e.status, createdAt: e.createdAt, at });
        }
      });
      s.ws.once('close', (code) => reject(new Error(`closed ${code}`)));
    });
    return s;
  }

  subscribe(id: string | null): void {
    const query = id ? 'subscription ($id: ID) { sessionStatusChanged(id: $id) { id status createdAt } }' : 'subscription { sessionStatusChanged { id status createdAt } }';
    this.ws.send(JSON.stringify({ id: String(++this.subId), type: 'subscribe', payload: { query, variables: id ? { id } : {} } }));
  }
}

const matches = (r: Receipt, m: Match) => (m.status === undefined || r.status === m.status) && (m.sessionId === undefined || r.sessionId === m.sessionId);

async function until(check: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

let subs: Subscriber[] = [];

async function handle(req: ClientRequest): Promise<unknown> {
  switch (req.op) {
    case 'open': {
      const opened: Subscriber[] = new Array(req.indices.length);
      let next = 0;
      await Promise.all(
        Array.from({ length: Math.min(req.concurrency, req.indices.length) }, async () => {
          while (next < req.indices.length) {
            const k = next++;
            const i = req.indices[k];
            const s = await Subscriber.open(req.urls[i % req.urls.length], req.key);
            s.subscribe(req.sessions[i % req.sessions.length]);
            opened[k] = s;
          }
        }),
      );
      subs = opened;
      // Each by-id subscription first receives the current status (CREATED).
      await until(() => subs.every((s) => s.received.length >= 1), 'initial statuses', req.timeoutMs);
      return subs.length;
    }
    case 'subscribeAll':
      for (const s of subs) s.subscribe(req.id);
      return subs.length;
    case 'waitAll':
      await until(() => subs.every((s) => s.received.some((r) => matches(r, req.match))), `deliveries of ${JSON.stringify(req.match)}`, req.timeoutMs);
      return subs.length;
    case 'receipts':
      return subs.flatMap((s) => s.received.filter((r) => matches(r, req.match)));
    case 'close':
      await Promise.all(
        subs.map(
          (s) =>
            new Promise<void>((resolve) => {
              if (s.ws.readyState === WebSocket.CLOSED) return resolve();
              s.ws.once('close', () => resolve());
              s.ws.close(1000);
            }),
        ),
      );
      subs = [];
      return 0;
  }
}

parentPort?.on('message', (msg: { call: number } & ClientRequest) => {
  handle(msg).then(
    (result) => parentPort!.postMessage({ call: msg.call, result }),
    (err: unknown) => parentPort!.postMessage({ call: msg.call, error: err instanceof Error ? err.message : String(err) }),
  );
});
