import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { Database, openDatabase } from '../../src/db/database';

/**
 * A database no other test touches: a fresh embedded one, or with DATABASE_URL a fresh database on
 * that server, dropped on close. For tests of whole-table sweeps (the retention purge), which on
 * the shared database would race the sweeps of test servers running beside them.
 */
export async function openOwnDatabase(label: string, poolSize = 4): Promise<Database> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) return openDatabase({ databaseUrl: undefined, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), `ivs-${label}-`)) }, poolSize);
  const name = `ivs_${label.replace(/\W/g, '_')}_${process.pid}_${Date.now().toString(36)}`;
  await onServer(serverUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString(), dataDir: '' }, poolSize);
  return {
    ...database,
    close: async () => {
      await database.close();
      await onServer(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}

async function onServer(url: string, statement: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
