import { Client } from 'pg';
import { jobSchemaPrefixOfThisRun } from './helpers/test-server';

/** Drops the job schemas that this run's test servers created on a shared PostgreSQL (not another run's, still in use). */
export default async function globalTeardown(): Promise<void> {
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
