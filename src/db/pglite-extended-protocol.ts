/**
 * pglite-socket 0.2 multiplexes every client onto PGlite's one session and queues their protocol
 * messages one by one. It keeps one client's messages together only inside a transaction, so two
 * clients' extended-protocol sequences (Parse, Bind, Describe, Execute ... Sync) outside a
 * transaction interleave, and one client's Bind then meets the other's unnamed statement:
 * "unnamed prepared statement does not exist", or a query answered with another's rows.
 *
 * This keeps a client's sequence together until its Sync (or a simple Query), as a real server
 * does per connection. It patches the queue object of one PGLiteSocketServer.
 *
 * Session state is one too: a `SET` (say `session_replication_role = replica`, or a `search_path`)
 * sent by the CLI or psql on the socket would hold for the server's connections (issue #25 finding
 * 13). A statement that may change session state marks the session as that client's; before another
 * client's next message, with no transaction open, the session is reset to its defaults. So a SET
 * lasts for its own connection only until another connection's statement runs.
 */
type QueuedMessage = { handlerId: number; message: Uint8Array; resolve(n: number): void; reject(e: unknown): void; onData(d: Uint8Array): void };
type QueryQueue = {
  queue: QueuedMessage[];
  processing: boolean;
  lastHandlerId: number | null;
  db: { isInTransaction(): boolean; exec(sql: string): Promise<unknown>; runExclusive<T>(fn: () => Promise<T>): Promise<T>; execProtocolRawStream(m: Uint8Array, o: { onRawData(d: Uint8Array): void }): Promise<unknown> };
  processQueue(): Promise<void>;
};

/** Parse, Bind, Describe, Execute, Close, Flush: messages that continue until the client's Sync. */
const EXTENDED = new Set([0x50, 0x42, 0x44, 0x45, 0x43, 0x48]);
const QUERY = 0x51;
const PARSE = 0x50;

/** What undoes every session-level change a client can make (never a named prepared statement: the server uses none here). */
const RESET_SESSION = 'RESET SESSION AUTHORIZATION; RESET ALL; DISCARD TEMP; UNLISTEN *';

/**
 * Statements that may change the session for whoever comes next: SET/RESET and their function
 * forms, DISCARD, LISTEN, temporary objects (they shadow tables), and code (DO, CALL, PREPARE) that
 * could do any of these. The server's own statements never match (STACK.md: no SET, LISTEN or named
 * statements on the embedded database), except migrations' DDL at start, which is harmless.
 */
const SESSION_CHANGING = /(^|;)\s*(set|reset|discard|listen|unlisten|do|call|prepare|load)\b|set_config\s*\(|\btemp(orary)?\b|pg_temp|\bsession\s+authorization\b/i;

/** The SQL text of a simple Query or a Parse message, comments removed; null for any other message. */
export function sqlOf(message: Uint8Array): string | null {
  const type = message[0];
  if (type !== QUERY && type !== PARSE) return null;
  let at = 5;
  if (type === PARSE) {
    while (at < message.length && message[at] !== 0) at++; // the statement's name
    at++;
  }
  let end = at;
  while (end < message.length && message[end] !== 0) end++;
  const text = Buffer.from(message.subarray(at, end)).toString('utf8');
  return text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/--[^\n]*/g, ' ');
}

export const mayChangeSession = (sql: string): boolean => SESSION_CHANGING.test(sql.trim());

export function keepExtendedProtocolSequencesTogether(server: unknown): void {
  const q = (server as { queryQueue?: QueryQueue }).queryQueue;
  if (!q || typeof q.processQueue !== 'function' || !Array.isArray(q.queue)) {
    throw new Error('pglite-socket internals changed: re-check src/db/pglite-extended-protocol.ts');
  }
  let pinned: number | null = null; // a client in the middle of an extended-protocol sequence
  let changedBy: number | null = null; // the client whose statement may have changed the session's state
  q.processQueue = async function processQueue(this: QueryQueue): Promise<void> {
    if (this.processing || this.queue.length === 0) return;
    this.processing = true;
    try {
      while (this.queue.length > 0) {
        const owner = pinned ?? (this.db.isInTransaction() ? this.lastHandlerId : null);
        let item: QueuedMessage | undefined;
        if (owner !== null) {
          const i = this.queue.findIndex((m) => m.handlerId === owner);
          if (i === -1) break; // wait for the owner's next message; its enqueue restarts processing
          item = this.queue.splice(i, 1)[0];
        } else {
          item = this.queue.shift();
        }
        if (!item) break;
        const type = item.message[0];
        // Only an open extended-protocol sequence pins its client: a start-up packet, a simple Query or a
        // Sync never does, so an idle connection cannot hold the others back.
        pinned = EXTENDED.has(type) ? item.handlerId : null;
        const current = item;
        if (changedBy !== null && changedBy !== current.handlerId && !this.db.isInTransaction()) {
          changedBy = null;
          try {
            await this.db.exec(RESET_SESSION);
          } catch (err) {
            process.stderr.write(`embedded database: resetting the session failed: ${(err as Error).message}\n`);
          }
        }
        const sql = sqlOf(current.message);
        if (sql !== null && mayChangeSession(sql)) changedBy = current.handlerId;
        try {
          let bytes = 0;
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(current.message, {
              onRawData: (d) => {
                bytes += d.length;
                current.onData(d);
              },
            }),
          );
          this.lastHandlerId = current.handlerId;
          current.resolve(bytes);
        } catch (err) {
          pinned = null;
          current.reject(err);
        }
      }
    } finally {
      this.processing = false;
    }
  };
  // A client that disconnects mid-sequence must not hold the queue forever.
  const clear = (q as unknown as { clearQueueForHandler(id: number): void }).clearQueueForHandler.bind(q);
  (q as unknown as { clearQueueForHandler(id: number): void }).clearQueueForHandler = (id: number) => {
    if (pinned === id) pinned = null;
    clear(id);
    void q.processQueue();
  };
}
