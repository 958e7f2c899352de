import fs from 'node:fs';
import { Client } from 'pg';
import { embeddedTemplateDir, jobSchemaPrefixOfThisRun } from './helpers/test-server';

/**
 * Removes this run's migrated embedded database (test/helpers/test-server.ts migratedDataDir), and drops the job
 * schemas that this run's test servers created on a shared PostgreSQL (not another run's, still in use).
 */
export default async function globalTeardown(): Promise<void> {
  fs.rmSync(embeddedTemplateDir(), { recursive: true, force: true });
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
