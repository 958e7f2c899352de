import 'reflect-metadata';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { ALL_ENTITIES } from '../../entities';
import { MIGRATIONS } from './migrations';

/** Where a process reaches PostgreSQL: a URL for a real server, or the embedded server's socket directory. */
export type PostgresTarget = { url: string } | { socketDir: string };

/** node-postgres options for a target; pg-boss and the benchmarks reuse them. */
export function pgConnectionOptions(target: PostgresTarget): { connectionString: string } | { host: string; port: number; user: string; database: string } {
  return 'url' in target
    ? { connectionString: target.url }
    : { host: target.socketDir, port: 5432, user: 'postgres', database: 'postgres' };
}

/**
 * The one DataSource definition shared by the server, the worker, the CLI and migrations. Given a
 * `pool`, TypeORM runs on it instead of opening its own (through its documented `driver` option:
 * the `pg` module whose `Pool` it instantiates), so src/db owns the one pool that both TypeORM and
 * the prepared statements of src/db/prepared-sql.ts use.
 */
export function createDataSource(target: PostgresTarget, poolSize = 10, pool?: Pool): DataSource {
  const conn = pgConnectionOptions(target);
  return new DataSource({
    ...(pool ? { driver: { Pool: function OwnedPool() { return pool; } } } : {}),
    type: 'postgres',
    ...('connectionString' in conn
      ? { url: conn.connectionString }
      : { host: conn.host, port: conn.port, username: conn.user, database: conn.database }),
    entities: ALL_ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'typeorm_migrations',
    synchronize: false,
    logging: false,
    extra: { max: poolSize },
  });
}

