/**
 * pglite-socket 0.2 multiplexes every client onto PGlite's one session and queues their protocol
 * messages one by one. It keeps one client's messages together only inside a transaction, so two
 * clients' extended-protocol sequences (Parse, Bind, Describe, Execute ... Sync) outside a
 * transaction interleave, and one client's Bind then meets the other's unnamed statement:
 * "unnamed prepared statement does not exist", or a query answered with another's rows.
 *
 * This keeps a client's sequence together until its Sync (or a simple Query), as a real server
 * does per connection. It patches the queue object of one PGLiteSocketServer.
 */
type QueuedMessage = { handlerId: number; message: Uint8Array; resolve(n: number): void; reject(e: unknown): void; onData(d: Uint8Array): void };
type QueryQueue = {
  queue: QueuedMessage[];
  processing: boolean;
  lastHandlerId: number | null;
  db: { isInTransaction(): boolean; runExclusive<T>(fn: () => Promise<T>): Promise<T>; execProtocolRawStream(m: Uint8Array, o: { onRawData(d: Uint8Array): void }): Promise<unknown> };
  processQueue(): Promise<void>;
};

/** Parse, Bind, Describe, Execute, Close, Flush: messages that continue until the client's Sync. */
const EXTENDED = new Set([0x50, 0x42, 0x44, 0x45, 0x43, 0x48]);

export function keepExtendedProtocolSequencesTogether(server: unknown): void {
  const q = (server as { queryQueue?: QueryQueue }).queryQueue;
  if (!q || typeof q.processQueue !== 'function' || !Array.isArray(q.queue)) {
    throw new Error('pglite-socket internals changed: re-check src/db/pglite-extended-protocol.ts');
  }
  let pinned: number | null = null; // a client in the middle of an extended-protocol sequence
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
