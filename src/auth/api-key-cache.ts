import { Client } from 'pg';
import type { Logger } from '../logger';
import type { TenantKeyActor } from './actor';

export const API_KEY_CHANGED_CHANNEL = 'api_key_changed';
const MAX_ENTRIES = 10_000;
const RECONNECT_MS = 1000;
const HEARTBEAT_MS = 2000;
export const LISTENER_APPLICATION_NAME = 'ivs-api-key-cache';

type Entry = { keyHash: string; actor: TenantKeyActor };

/**
 * Active API keys already authenticated by this process, so a read costs one query, not two.
 *
 * A revocation must be refused at once on every instance, so the cache only answers while it holds
 * a LISTEN connection on `api_key_changed`, which a trigger on `api_keys` notifies at commit with the
 * changed key's id (migration 1763794000000). When that connection drops, the cache empties and stays
 * off until it listens again: a missed notification can never leave a revoked key cached. A
 * connection can also die silently (a network partition sends no FIN), so the listener answers a
 * heartbeat every 2 s; one left unanswered when the next is due counts as a lost connection. The
 * worst case, a revocation during an undetected partition, is thus served for at most ~4 s.
 *
 * Lookups racing an eviction cannot re-insert what they read before it: every eviction bumps a
 * generation, and a lookup caches its row only if the generation it started under still holds.
 *
 * Embedded PGlite serves every connection from one backend, so a NOTIFY there reaches the notifying
 * connection, not ours: with no `DATABASE_URL` the cache is never on and every request reads its key.
 */
export class ApiKeyCache {
  private readonly byHash = new Map<string, Entry>();
  private readonly hashById = new Map<string, string>();
  private generation = 0;
  private listening = false;
  private client: Client | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private stopped = false;

  private constructor(
    private readonly connectionString: string | null,
    private readonly logger: Logger,
  ) {}

  /** A cache that listens on this PostgreSQL server; `null` (embedded) gives one that is always off. */
  static async start(connectionString: string | null, logger: Logger): Promise<ApiKeyCache> {
    const cache = new ApiKeyCache(connectionString, logger);
    if (connectionString) await cache.listen();
    return cache;
  }

  get enabled(): boolean {
    return this.listening;
  }

  /** The cached actor for a key hash, when the cache is listening and holds it. */
  get(keyHash: string): Entry | undefined {
    return this.listening ? this.byHash.get(keyHash) : undefined;
  }

  /** Call before reading a key from the database; pass the result to `put`. */
  beginLookup(): number {
    return this.generation;
  }

  put(generation: number, entry: Entry): void {
    if (!this.listening || generation !== this.generation) return;
    if (this.byHash.size >= MAX_ENTRIES) this.clear(); // rare; a full re-read is cheaper than LRU bookkeeping on every hit
    this.byHash.set(entry.keyHash, entry);
    this.hashById.set(entry.actor.keyId, entry.keyHash);
  }

  /** Forgets one key (a notification, or a revocation made by this process). */
  evict(keyId: string): void {
    this.generation++;
    const hash = this.hashById.get(keyId);
    if (hash === undefined) return;
    this.hashById.delete(keyId);
    this.byHash.delete(hash);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.off();
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private clear(): void {
    this.generation++;
    this.byHash.clear();
    this.hashById.clear();
  }

  private off(): void {
    this.listening = false;
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
    this.clear();
  }

  private async listen(): Promise<void> {
    // Named, so an operator (and a test) can tell this connection apart in pg_stat_activity.
    const client = new Client({ connectionString: this.connectionString!, application_name: `${LISTENER_APPLICATION_NAME}:${process.pid}` });
    this.client = client;
    const lost = (err?: Error) => {
      if (this.client !== client) return;
      this.client = null;
      this.off();
      if (!this.stopped) {
        this.logger.warn({ err: err?.message }, 'api key cache: lost its notification connection; keys are read on every request until it is back');
        this.scheduleReconnect();
      }
      client.end().catch(() => undefined);
    };
    client.on('notification', (msg) => {
      if (msg.channel === API_KEY_CHANGED_CHANNEL && msg.payload) this.evict(msg.payload);
    });
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      await client.query(`LISTEN ${API_KEY_CHANGED_CHANNEL}`);
      if (this.client !== client) return;
      this.clear(); // whatever changed while we were deaf is unknown: start empty
      this.listening = true;
      this.startHeartbeat(client, lost);
    } catch (err) {
      lost(err as Error);
    }
  }

  private startHeartbeat(client: Client, lost: (err?: Error) => void): void {
    let answered = true;
    this.heartbeatTimer = setInterval(() => {
      if (!answered) return lost(new Error('heartbeat unanswered'));
      answered = false;
      client.query('SELECT 1').then(
        () => (answered = true),
        (err: Error) => lost(err),
      );
    }, HEARTBEAT_MS);
    this.heartbeatTimer.unref();
  }

  private scheduleReconnect(): void {
    if (this.reconnectTimer || this.stopped) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      void this.listen();
    }, RECONNECT_MS);
    this.reconnectTimer.unref();
  }
}
