import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { embeddedTemplateDir, jobSchemaPrefixOfThisRun, runDataDirPrefix } from './helpers/test-server';

/** How many directories are removed at once: removal waits on the disk, not the CPU. */
const REMOVALS_AT_ONCE = 16;

/**
 * Removes this run's migrated embedded database (test/helpers/test-server.ts migratedDataDir) and its test
 * servers' data directories (runDataDirPrefix; not another run's, which may still be in use), and drops the job
 * schemas that this run's test servers created on a shared PostgreSQL (likewise).
 */
export default async function globalTeardown(): Promise<void> {
  const prefix = runDataDirPrefix();
  const dirs = [embeddedTemplateDir(), ...fs.readdirSync(os.tmpdir()).filter((name) => prefix !== undefined && name.startsWith(prefix)).map((name) => path.join(os.tmpdir(), name))];
  for (let i = 0; i < dirs.length; i += REMOVALS_AT_ONCE) await Promise.all(dirs.slice(i, i + REMOVALS_AT_ONCE).map((dir) => fs.promises.rm(dir, { recursive: true, force: true })));
  if (!process.env.DATABASE_URL) return;
  const client = new Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    const prefix = jobSchemaPrefixOfThisRun().replace(/_/g, '\\_');
    const { rows } = await client.query<{ nspname: string }>(`SELECT nspname FROM pg_namespace WHERE nspname LIKE $1`, [`${prefix}%`]);
    for (const { nspname } of rows) await client.query(`DROP SCHEMA IF EXISTS "${nspname}" CASCADE`);
  } finally {
    await client.end();
  }
}
