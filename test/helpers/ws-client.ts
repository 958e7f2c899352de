import WebSocket from 'ws';

export type WsMessage = { type: string; id?: string; payload?: any };
export type WsClose = { code: number; reason: string };

/**
 * A raw `graphql-transport-ws` client for tests: it shows exactly what the server sends (every
 * message, the close code), which a full client library would hide behind retries.
 */
export class RawGraphQLWs {
  readonly messages: WsMessage[] = [];
  readonly closed: Promise<WsClose>;
  pings = 0;
  private listeners: (() => void)[] = [];
  private nextId = 1;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.messages.push(JSON.parse(String(data)) as WsMessage);
      this.notify();
    });
    ws.on('ping', () => {
      this.pings++;
      this.notify();
    });
    this.closed = new Promise((resolve) =>
      ws.on('close', (code, reason) => {
        resolve({ code, reason: String(reason) });
        this.notify();
      }),
    );
  }

  /** Opens a socket and sends connection_init; resolves once it is acknowledged or closed. */
  static async connect(baseUrl: string, payload?: Record<string, unknown>): Promise<{ client: RawGraphQLWs; acked: boolean; close?: WsClose }> {
    const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
    const client = new RawGraphQLWs(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.send(JSON.stringify(payload === undefined ? { type: 'connection_init' } : { type: 'connection_init', payload }));
    const outcome = await Promise.race([
      client.waitFor(() => client.messages.some((m) => m.type === 'connection_ack'), 10_000).then(() => 'ack' as const),
      client.closed,
    ]);
    if (outcome === 'ack') return { client, acked: true };
    return { client, acked: false, close: outcome };
  }

  static bearer(credential: string) {
    return { authorization: `Bearer ${credential}` };
  }

  subscribe(query: string, variables: Record<string, unknown> = {}): Subscription {
    const id = String(this.nextId++);
    this.ws.send(JSON.stringify({ id, type: 'subscribe', payload: { query, variables } }));
    return new Subscription(this, id);
  }

  /** Resolves when `check` holds, re-checked on every message; rejects after `timeoutMs`. */
  waitFor(check: () => boolean, timeoutMs = 60_000): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.listeners = this.listeners.filter((l) => l !== listener);
        reject(new Error(`condition not met within ${timeoutMs} ms; messages: ${JSON.stringify(this.messages).slice(0, 2000)}`));
      }, timeoutMs);
      const listener = () => {
        if (!check()) return;
        clearTimeout(timer);
        this.listeners = this.listeners.filter((l) => l !== listener);
        resolve();
      };
      this.listeners.push(listener);
    });
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  close(): void {
    this.ws.close(1000);
  }

  private notify() {
    for (const l of [...this.listeners]) l();
  }
}

export class Subscription {
  constructor(
    private readonly client: RawGraphQLWs,
    readonly id: string,
  ) {}

  private mine(): WsMessage[] {
    return this.client.messages.filter((m) => m.id === this.id);
  }

  /** The `data` of every `next` message so far. */
  get data(): any[] {
    return this.mine()
      .filter((m) => m.type === 'next' && m.payload?.data)
      .map((m) => m.payload.data);
  }

  /** Errors from `error` messages and from `next` messages that carry errors. */
  get errors(): any[] {
    return this.mine().flatMap((m) => (m.type === 'error' ? m.payload : m.type === 'next' && m.payload?.errors ? m.payload.errors : []));
  }

  get completed(): boolean {
    return this.mine().some((m) => m.type === 'complete');
  }

  waitForData(n: number, timeoutMs = 60_000): Promise<void> {
    return this.client.waitFor(() => this.data.length >= n, timeoutMs);
  }

  waitForComplete(timeoutMs = 60_000): Promise<void> {
    return this.client.waitFor(() => this.completed, timeoutMs);
  }

  waitForError(timeoutMs = 60_000): Promise<void> {
    return this.client.waitFor(() => this.errors.length > 0, timeoutMs);
  }

  stop(): void {
    this.client.ws.send(JSON.stringify({ id: this.id, type: 'complete' }));
  }
}
