import type { Pool } from 'pg';

/**
 * Statements on the hottest paths (every API call), sent straight to the `pg` pool that
 * src/db/database.ts opens and TypeORM also runs on, rather than through TypeORM, whose query
 * runner and builder cost more CPU than PostgreSQL spent answering. On a real PostgreSQL each is a
 * named prepared statement, parsed and planned once per connection. Embedded PGlite runs every
 * connection in one backend, where a name prepared by one pool connection collides with the next,
 * so there it is sent unnamed.
 */
export class PreparedSql {
  constructor(
    private readonly pool: Pool,
    /** True on a real PostgreSQL, where each connection has a backend of its own. */
    private readonly named: boolean,
  ) {}

  async rows<Row>(name: string, text: string, values: unknown[]): Promise<Row[]> {
    const { rows } = await this.pool.query(this.named ? { name, text, values } : { text, values });
    return rows as Row[];
  }
}
