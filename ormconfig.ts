import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { ALL_ENTITIES } from './entities';
import { MIGRATIONS } from './src/db/migrations';

/** Where a process reaches PostgreSQL: a URL for a real server, or the embedded server's socket directory. */
export type PostgresTarget = { url: string } | { socketDir: string };

/** node-postgres options for a target; pg-boss and the benchmarks reuse them. */
export function pgConnectionOptions(target: PostgresTarget): { connectionString: string } | { host: string; port: number; user: string; database: string } {
  return 'url' in target
    ? { connectionString: target.url }
    : { host: target.socketDir, port: 5432, user: 'postgres', database: 'postgres' };
}

/** The one DataSource definition shared by the server, the worker, the CLI and migrations. */
export function createDataSource(target: PostgresTarget, poolSize = 10): DataSource {
  const conn = pgConnectionOptions(target);
  return new DataSource({
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

/** For the TypeORM CLI (`npx typeorm migration:show -d dist/ormconfig.js`) against DATABASE_URL. */
export default createDataSource({ url: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
