import type { DataSource } from 'typeorm';

type PgPool = { query(q: { name?: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }> };

/**
 * A statement on the hottest paths (every API call), sent straight to the connection pool rather
 * than through TypeORM, whose query runner and builder cost more CPU than PostgreSQL spent answering.
 * On a real PostgreSQL it is a named prepared statement, parsed and planned once per connection.
 * Embedded PGlite runs every connection in one backend, where a name prepared by one pool connection
 * collides with the next, so there it is sent unnamed.
 */
export async function hotQuery<Row>(db: DataSource, name: string, text: string, values: unknown[]): Promise<Row[]> {
  const pool = (db.driver as unknown as { master: PgPool }).master;
  const { rows } = await pool.query(ownsItsBackends(db) ? { name, text, values } : { text, values });
  return rows as Row[];
}

/** A server URL means a real PostgreSQL, with a backend per connection; the embedded database is reached by socket directory. */
const ownsItsBackends = (db: DataSource): boolean => typeof (db.options as { url?: string }).url === 'string';
