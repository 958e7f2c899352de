import { createHash } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';

/**
 * Statements on the hottest paths (every API call), sent straight to the `pg` pool that
 * src/db/database.ts opens and TypeORM also runs on, rather than through TypeORM, whose query
 * runner and builder cost more CPU than PostgreSQL spent answering. Each is a named prepared
 * statement, parsed and planned once rather than on every call:
 *
 * - on a real PostgreSQL, once per connection (each has a backend of its own; `pg` remembers per
 *   connection what it prepared);
 * - on the embedded PGlite, once for the process: every pool connection (and any other process on
 *   its socket, such as the CLI) is multiplexed onto PGlite's one backend, so a statement one
 *   connection prepared exists for all of them, and a second Parse of the name would fail. See
 *   SharedBackendStatements below.
 */
export class PreparedSql {
  private readonly shared: SharedBackendStatements | null;
  private readonly names = new StatementNames();

  constructor(
    private readonly pool: Pool,
    /** True on a real PostgreSQL, where each connection has a backend of its own. */
    perConnectionBackends: boolean,
  ) {
    this.shared = perConnectionBackends ? null : new SharedBackendStatements(pool);
  }

  async rows<Row>(name: string, text: string, values: unknown[]): Promise<Row[]> {
    const backendName = this.names.of(name, text);
    if (this.shared) return this.shared.rows<Row>(backendName, text, values);
    const { rows } = await this.pool.query({ name: backendName, text, values });
    return rows as Row[];
  }
}

/**
 * The name a statement has on the backend: the caller's, with a hash of the text. Two texts given
 * one name stay two statements, and two builds sharing an embedded backend (a server and an older
 * CLI) never mean different statements by one name.
 */
class StatementNames {
  private readonly byName = new Map<string, { text: string; backendName: string }>();

  of(name: string, text: string): string {
    const known = this.byName.get(name);
    if (known?.text === text) return known.backendName;
    const backendName = `${name}_${createHash('sha256').update(text).digest('hex').slice(0, 12)}`;
    this.byName.set(name, { text, backendName });
    return backendName;
  }
}

/** What `pg` keeps per connection about the statements it has prepared (pg 8's Connection). */
type PgConnection = { parsedStatements?: Record<string, string> };
const connectionOf = (client: PoolClient): PgConnection | undefined => (client as unknown as { connection?: PgConnection }).connection;

/** SQLSTATE 26000: the backend has no prepared statement of that name. */
const UNKNOWN_PREPARED_STATEMENT = '26000';
/** SQLSTATE 42P05: the backend already has a prepared statement of that name. */
const DUPLICATE_PREPARED_STATEMENT = '42P05';

/**
 * Named statements on one backend shared by every connection (PGlite). A statement is prepared by
 * the first call that uses it, alone; calls arriving meanwhile run it unnamed. From then on every
 * connection is told, before it runs the statement, that the backend has it (`pg`'s per-connection
 * record), so it sends Bind/Execute without a Parse. A backend that already has the name (prepared
 * by another process on the socket; the name's hash says it is the same text) counts as prepared.
 */
class SharedBackendStatements {
  private readonly prepared = new Map<string, string>(); // backend name -> text
  private readonly preparing = new Set<string>();

  constructor(private readonly pool: Pool) {}

  async rows<Row>(backendName: string, text: string, values: unknown[]): Promise<Row[]> {
    try {
      return await this.once<Row>(backendName, text, values);
    } catch (err) {
      if ((err as { code?: string }).code !== UNKNOWN_PREPARED_STATEMENT) throw err;
      // The backend does not have what it was known to have: the embedded database was started again
      // (app/keep-embedded-database.ts), with none of the old one's statements. Prepare anew.
      this.prepared.clear();
      return this.once<Row>(backendName, text, values);
    }
  }

  private async once<Row>(backendName: string, text: string, values: unknown[]): Promise<Row[]> {
    if (!this.prepared.has(backendName) && this.preparing.has(backendName)) {
      return (await this.pool.query({ text, values })).rows as Row[];
    }
    const client = await this.pool.connect();
    let released = false;
    try {
      const connection = connectionOf(client);
      if (!connection?.parsedStatements) {
        // Not the pg this was written against: stay correct, unnamed.
        return (await client.query({ text, values })).rows as Row[];
      }
      if (this.prepared.has(backendName)) {
        connection.parsedStatements[backendName] ??= text;
        try {
          return (await client.query({ name: backendName, text, values })).rows as Row[];
        } catch (err) {
          // This connection must not go on believing in a statement the backend lost.
          if ((err as { code?: string }).code === UNKNOWN_PREPARED_STATEMENT) delete connection.parsedStatements[backendName];
          throw err;
        }
      }
      this.preparing.add(backendName);
      // Not known on the backend: whatever this connection remembers of the name is from a backend gone since.
      delete connection.parsedStatements[backendName];
      try {
        return (await client.query({ name: backendName, text, values })).rows as Row[];
      } catch (err) {
        if ((err as { code?: string }).code !== DUPLICATE_PREPARED_STATEMENT) throw err;
        // Another process on this backend prepared it first: the same text, by the hash in the name.
        connection.parsedStatements[backendName] = text;
        return (await client.query({ name: backendName, text, values })).rows as Row[];
      } finally {
        // Parsed even when the execution failed (a bad value): then the backend has it all the same.
        if (connection.parsedStatements[backendName] !== undefined) this.prepared.set(backendName, text);
        this.preparing.delete(backendName);
      }
    } catch (err) {
      // A failed extended-protocol exchange can leave the connection unusable: do not pool it.
      released = true;
      client.release(isConnectionError(err) ? (err as Error) : undefined);
      throw err;
    } finally {
      if (!released) client.release();
    }
  }
}

/** Errors of the connection itself (no SQLSTATE), as opposed to the statement's. */
const isConnectionError = (err: unknown): boolean => !(err && typeof err === 'object' && typeof (err as { code?: unknown }).code === 'string' && /^[0-9A-Z]{5}$/.test((err as { code: string }).code));
