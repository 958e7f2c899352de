import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { createDataSource, pgConnectionOptions, PostgresTarget } from '../../ormconfig';
import type { Config } from '../config';
import { NEVER_LOST, openEmbeddedPostgres } from './embedded-postgres';
import { PreparedSql } from './prepared-sql';

export type Database = {
  target: PostgresTarget;
  dataSource: DataSource;
  /** Prepared statements of the hot paths, on the same pool as `dataSource`. */
  sql: PreparedSql;
  embedded: boolean;
  /** Settles if the embedded database's own process ends under us; never with a PostgreSQL server. */
  lost: Promise<string>;
  close(): Promise<void>;
};

// Any constant works; it only has to be the same in every instance.
const MIGRATION_LOCK_ID = 724_061_337;

/** Opens PostgreSQL (real or embedded) and brings its schema up to date. */
export async function openDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>, poolSize = 10): Promise<Database> {
  const embedded = config.databaseUrl ? null : await openEmbeddedPostgres(config.dataDir);
  const target: PostgresTarget = embedded ? { socketDir: embedded.socketDir } : { url: config.databaseUrl! };
  // One pg pool, opened here: TypeORM runs on it, and so do the prepared statements.
  const pool = new Pool({ ...pgConnectionOptions(target), max: poolSize });
  const dataSource = createDataSource(target, poolSize, pool);
  try {
    await dataSource.initialize();
    await runMigrationsExclusively(dataSource);
  } catch (err) {
    if (dataSource.isInitialized) await dataSource.destroy();
    await embedded?.close();
    throw err;
  }
  return {
    target,
    dataSource,
    sql: new PreparedSql(pool, 'url' in target),
    embedded: embedded !== null,
    lost: embedded?.lost ?? NEVER_LOST,
    close: async () => {
      await dataSource.destroy();
      await embedded?.close();
    },
  };
}

/** Instances starting together must not run the same migration twice: a session advisory lock orders them. */
async function runMigrationsExclusively(dataSource: DataSource): Promise<void> {
  const lock = dataSource.createQueryRunner();
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    try {
      await dataSource.runMigrations({ transaction: 'each' });
    } finally {
      await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]);
    }
  } finally {
    await lock.release();
  }
}
