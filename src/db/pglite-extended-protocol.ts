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
 *
 * A client's end is its own too (issue #40 finding 3): pglite-socket passed a Terminate on to the one
 * session, and rolled back a leaving client's transaction only when its message had been the last one
 * run. Here a Terminate never reaches PGlite (it ends that client's connection only), and a client that
 * leaves, however it leaves, has its unfinished extended-protocol sequence ended with a Sync and its
 * open transaction rolled back before any other client's next message runs.
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

/** A Sync message: ends a client's unfinished extended-protocol sequence (and the error state one leaves behind). */
const SYNC = Uint8Array.from([0x53, 0, 0, 0, 4]);
/** A simple Query `ROLLBACK`. */
const ROLLBACK = (() => {
  const text = Buffer.from('ROLLBACK\0', 'utf8');
  const head = Buffer.alloc(5);
  head[0] = QUERY;
  head.writeInt32BE(4 + text.length, 1);
  return Uint8Array.from(Buffer.concat([head, text]));
})();
const TERMINATE = 0x58;
const ERROR_RESPONSE = 0x45;

/** The error a Terminate's own message ends with: the socket handler then closes that client's connection (its error path). */
export class ClientTerminated extends Error {
  constructor() {
    super('the client sent Terminate');
  }
}

/**
 * True when `output` (one or more backend messages) holds an ErrorResponse of severity FATAL or
 * PANIC: PostgreSQL ends the backend after one, and PGlite's one session does not come back from it.
 */
export function endsTheSession(output: Uint8Array): boolean {
  let at = 0;
  while (at + 5 <= output.length) {
    const type = output[at];
    const length = Buffer.from(output.buffer, output.byteOffset + at + 1, 4).readInt32BE(0);
    if (length < 4) return false;
    if (type === ERROR_RESPONSE) {
      const body = Buffer.from(output.buffer, output.byteOffset + at + 5, Math.max(0, Math.min(length - 4, output.length - at - 5))).toString('latin1');
      if (/(^|\0)[SV](FATAL|PANIC)\0/.test(body)) return true;
    }
    at += 1 + length;
  }
  return false;
}

/**
 * Patches the queue of one PGLiteSocketServer (see above). `onSessionEnded` is called once if a
 * message ends PGlite's session anyway (a FATAL error): its owner must then start the database again.
 */
export function keepExtendedProtocolSequencesTogether(server: unknown, onSessionEnded: (why: string) => void = () => undefined): void {
  const q = (server as { queryQueue?: QueryQueue }).queryQueue;
  const internals = q as unknown as { clearQueueForHandler?(id: number): void; clearTransactionIfNeeded?(id: number): Promise<void> };
  if (!q || typeof q.processQueue !== 'function' || !Array.isArray(q.queue) || typeof internals.clearQueueForHandler !== 'function' || typeof internals.clearTransactionIfNeeded !== 'function') {
    throw new Error('pglite-socket internals changed: re-check src/db/pglite-extended-protocol.ts');
  }
  let pinned: number | null = null; // a client in the middle of an extended-protocol sequence
  let changedBy: number | null = null; // the client whose statement may have changed the session's state
  // Clients gone (closed, reset, or Terminate sent) whose sequence and transaction are not yet ended, each with who waits for that.
  const leaving = new Map<number, (() => void)[]>();
  let sessionEnded = false;

  /** Runs one message on PGlite with nothing else in between; its answer goes to `onData` (or nowhere). */
  const run = async (message: Uint8Array, onData: (d: Uint8Array) => void = () => undefined): Promise<number> => {
    let bytes = 0;
    await q.db.runExclusive(() =>
      q.db.execProtocolRawStream(message, {
        onRawData: (d) => {
          bytes += d.length;
          if (!sessionEnded && message[0] !== 0 && endsTheSession(d)) {
            sessionEnded = true;
            onSessionEnded(`a ${String.fromCharCode(message[0])} message ended the session with a FATAL error`);
          }
          onData(d);
        },
      }),
    );
    return bytes;
  };

  /** Ends what client `id` left unfinished on the one session: its extended-protocol sequence (Sync), then its transaction (ROLLBACK). */
  const endClient = async (id: number): Promise<void> => {
    try {
      if (pinned === id) {
        pinned = null;
        await run(SYNC);
      }
      if (q.lastHandlerId === id && q.db.isInTransaction()) await run(ROLLBACK);
    } catch (err) {
      process.stderr.write(`embedded database: ending a departed client's transaction failed: ${(err as Error).message}\n`);
    }
    if (q.lastHandlerId === id) q.lastHandlerId = null;
    if (changedBy === id && !q.db.isInTransaction()) {
      changedBy = null;
      await q.db.exec(RESET_SESSION).catch(() => undefined);
    }
  };

  const leave = (id: number): Promise<void> =>
    new Promise<void>((resolve) => {
      const waiting = leaving.get(id) ?? [];
      waiting.push(resolve);
      leaving.set(id, waiting);
    });

  q.processQueue = async function processQueue(this: QueryQueue): Promise<void> {
    if (this.processing || (this.queue.length === 0 && leaving.size === 0)) return;
    this.processing = true;
    try {
      while (this.queue.length > 0 || leaving.size > 0) {
        // A departed client's unfinished work is ended before any other client's next message.
        for (const [id, waiting] of [...leaving]) {
          leaving.delete(id);
          await endClient(id);
          for (const done of waiting) done();
        }
        if (this.queue.length === 0) break;
        const owner = pinned ?? (this.db.isInTransaction() ? this.lastHandlerId : null);
        let item: QueuedMessage | undefined;
        if (owner !== null) {
          const i = this.queue.findIndex((m) => m.handlerId === owner);
          if (i === -1) break; // wait for the owner's next message (or its departure); either restarts processing
          item = this.queue.splice(i, 1)[0];
        } else {
          item = this.queue.shift();
        }
        if (!item) break;
        const type = item.message[0];
        const current = item;
        if (type === TERMINATE) {
          // Never passed on: PGlite's one session is everyone's. This client's connection ends (the
          // rejection closes its socket), and its unfinished work is ended like any departure's.
          void leave(current.handlerId);
          current.reject(new ClientTerminated());
          continue;
        }
        // Only an open extended-protocol sequence pins its client: a start-up packet, a simple Query or a
        // Sync never does, so an idle connection cannot hold the others back.
        pinned = EXTENDED.has(type) ? current.handlerId : null;
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
          const bytes = await run(current.message, (d) => current.onData(d));
          this.lastHandlerId = current.handlerId;
          current.resolve(bytes);
        } catch (err) {
          if (pinned === current.handlerId) pinned = null;
          this.lastHandlerId = current.handlerId;
          current.reject(err);
        }
      }
    } finally {
      this.processing = false;
    }
  };
  // A client that disconnects (or is cut off) drops its queued messages, and its unfinished sequence
  // and transaction are ended before anyone else's next message.
  const clear = internals.clearQueueForHandler.bind(q);
  internals.clearQueueForHandler = (id: number) => {
    clear(id);
    void leave(id);
    void q.processQueue();
  };
  // pglite-socket's own clean-up rolled back only if the leaver's message was the last one run, and
  // outside the queue's order: here it waits for the departure above to be dealt with.
  internals.clearTransactionIfNeeded = async (id: number) => {
    if (!leaving.has(id)) return;
    const done = leave(id);
    void q.processQueue();
    await done;
  };
}
