import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { createDataSource, pgConnectionOptions, PostgresTarget } from './data-source';
import { openEmbeddedPostgres } from './embedded-postgres';
import { EmbeddedDatabaseKeeper } from './embedded-database-keeper';
import { PreparedSql } from './prepared-sql';
import { APP_ROLE } from './migrations/1764900000001-app-role';

export type Database = {
  /** Where the app's queries go (DATABASE_URL: ideally a role in `idv_app`, which owns nothing). */
  target: PostgresTarget;
  /** The owner's target (DATABASE_MIGRATION_URL, else `target`): migrations ran on it; the job queue manages its own schema with it. */
  ownerTarget: PostgresTarget;
  /** The role the app's login role belongs to, when the app and the owner are two roles (the job queue's schema is granted to it). */
  appRole: string | undefined;
  dataSource: DataSource;
  /** Prepared statements of the hot paths, on the same pool as `dataSource`. */
  sql: PreparedSql;
  embedded: boolean;
  /** The embedded database's own process, when this process started it: started again if it ends (src/db/embedded-database-keeper.ts). */
  keeper: EmbeddedDatabaseKeeper | null;
  /** The migrations this process applied as it opened the database, in order (none with `migrations: 'skip'`). */
  applied: string[];
  close(): Promise<void>;
};

/** The part of the configuration (src/config.ts) that says where the database is; unset `databaseUrl`: the embedded one under `dataDir`. */
export type DatabaseSettings = { databaseUrl: string | undefined; dataDir: string; databaseMigrationUrl?: string; migrations?: 'run' | 'skip' };

/** What a process started with MIGRATIONS=skip says, and exits with, when the schema is behind its build. */
export const MIGRATIONS_PENDING =
  "the database schema is behind this build (migrations pending) and MIGRATIONS=skip: run the migrations once (`node dist/app/cli.js migrate`, the deployment's migration job), then start this process again";

// Any constant works; it only has to be the same in every instance.
const MIGRATION_LOCK_ID = 724_061_337;

/**
 * Opens PostgreSQL (real or embedded) and brings its schema up to date: as the owner
 * (DATABASE_MIGRATION_URL) when one is given, then serves the app on DATABASE_URL, whose role should
 * own nothing (docs/operations.md, "Database roles"; issue #25 finding 13).
 */
export async function openDatabase(config: DatabaseSettings, poolSize = 10): Promise<Database> {
  const embedded = config.databaseUrl ? null : await openEmbeddedPostgres(config.dataDir);
  const keeper = embedded?.owned ? new EmbeddedDatabaseKeeper(config.dataDir, embedded) : null;
  const target: PostgresTarget = embedded ? { socketDir: embedded.socketDir } : { url: config.databaseUrl! };
  const ownerTarget: PostgresTarget = !embedded && config.databaseMigrationUrl ? { url: config.databaseMigrationUrl } : target;
  // One pg pool, opened here: TypeORM runs on it, and so do the prepared statements.
  const pool = new Pool({ ...pgConnectionOptions(target), max: poolSize });
  const dataSource = createDataSource(target, poolSize, pool);
  let applied: string[] = [];
  try {
    const run = config.migrations !== 'skip';
    if (run && ownerTarget !== target) applied = await migrateAsOwner(ownerTarget);
    await dataSource.initialize();
    if (run && ownerTarget === target) applied = await runMigrationsExclusively(dataSource);
    // Skipped: the migration job runs them once; a process of a newer build than the schema must not serve it.
    if (!run && (await dataSource.showMigrations())) throw new Error(MIGRATIONS_PENDING);
  } catch (err) {
    if (dataSource.isInitialized) await dataSource.destroy();
    await (keeper ?? embedded)?.close();
    throw err;
  }
  return {
    target,
    ownerTarget,
    appRole: ownerTarget === target ? undefined : APP_ROLE,
    dataSource,
    sql: new PreparedSql(pool, 'url' in target),
    embedded: embedded !== null,
    keeper,
    applied,
    close: async () => {
      await dataSource.destroy();
      await (keeper ?? embedded)?.close();
    },
  };
}

/** The owner's own short-lived connection, for the migrations only. */
async function migrateAsOwner(ownerTarget: PostgresTarget): Promise<string[]> {
  const owner = createDataSource(ownerTarget, 2);
  await owner.initialize();
  try {
    return await runMigrationsExclusively(owner);
  } finally {
    await owner.destroy();
  }
}

/** Instances starting together must not run the same migration twice: a session advisory lock orders them. */
async function runMigrationsExclusively(dataSource: DataSource): Promise<string[]> {
  const lock = dataSource.createQueryRunner();
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    try {
      return (await dataSource.runMigrations({ transaction: 'each' })).map((m) => m.name);
    } finally {
      await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]);
    }
  } finally {
    await lock.release();
  }
}
