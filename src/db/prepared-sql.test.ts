import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'pg';
import { Database, openDatabase } from './database';
import { pgConnectionOptions } from './data-source';
import { PreparedSql } from './prepared-sql';

/**
 * Prepared statements on the database the suite runs on: a real PostgreSQL (one backend per
 * connection) or the embedded PGlite, where every connection, and every process on its socket,
 * shares one backend, so a statement must be prepared there exactly once.
 */
describe('PreparedSql', () => {
  let database: Database;

  beforeAll(async () => {
    database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'ivs-prepared-')) }, 4);
  });
  afterAll(async () => {
    await database?.close();
  });

  const preparedNamed = async (prefix: string): Promise<number> => {
    const rows: { n: string }[] = await database.dataSource.query(`SELECT count(*) AS n FROM pg_prepared_statements WHERE name LIKE $1`, [`${prefix}%`]);
    return Number(rows[0].n);
  };

  it('answers many concurrent calls correctly, each with its own values, from one statement', async () => {
    const text = 'SELECT $1::int * 2 AS doubled';
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => database.sql.rows<{ doubled: number }>('test-doubled', text, [i])));
    expect(answers.map((r) => r[0].doubled)).toEqual(Array.from({ length: 40 }, (_, i) => i * 2));
    const again = await Promise.all(Array.from({ length: 40 }, (_, i) => database.sql.rows<{ doubled: number }>('test-doubled', text, [i + 100])));
    expect(again.map((r) => r[0].doubled)).toEqual(Array.from({ length: 40 }, (_, i) => (i + 100) * 2));
    // On PGlite the shared backend holds it once; a real server holds it once per connection (pool of 4).
    const held = await preparedNamed('test-doubled');
    if (database.embedded) expect(held).toBe(1);
    else expect(held).toBeLessThanOrEqual(1); // the query above runs on one connection, which may not be one that prepared it
  });

  it('reports a bad value on the first call, and the statement works afterwards', async () => {
    const text = 'SELECT $1::int + 1 AS next';
    await expect(database.sql.rows('test-next', text, ['not a number'])).rejects.toMatchObject({ code: '22P02' });
    const rows = await Promise.all([1, 2, 3].map((n) => database.sql.rows<{ next: number }>('test-next', text, [n])));
    expect(rows.map((r) => r[0].next)).toEqual([2, 3, 4]);
  });

  it('keeps two statements that a caller gave one name apart by their text', async () => {
    const a = await database.sql.rows<{ v: string }>('test-same-name', `SELECT 'a' || $1::text AS v`, ['1']);
    const b = await database.sql.rows<{ v: string }>('test-same-name', `SELECT 'b' || $1::text AS v`, ['1']);
    expect([a[0].v, b[0].v]).toEqual(['a1', 'b1']);
  });

  it('shares the embedded backend with a second process: statements it prepared are used, not prepared again', async () => {
    if (!database.embedded) return; // a real server gives every connection its own backend
    const text = 'SELECT $1::text AS echoed';
    expect((await database.sql.rows<{ echoed: string }>('test-echo', text, ['server']))[0].echoed).toBe('server');
    // Another process on the socket (the CLI, a second server) with its own pool and its own PreparedSql.
    const otherPool = new Pool({ ...pgConnectionOptions(database.target), max: 2 });
    try {
      const other = new PreparedSql(otherPool, false);
      const answers = await Promise.all(['cli-1', 'cli-2', 'cli-3'].map((v) => other.rows<{ echoed: string }>('test-echo', text, [v])));
      expect(answers.map((r) => r[0].echoed)).toEqual(['cli-1', 'cli-2', 'cli-3']);
    } finally {
      await otherPool.end();
    }
    expect(await preparedNamed('test-echo')).toBe(1);
  });

  it('prepares again when the embedded backend lost its statements (the database process was started again)', async () => {
    if (!database.embedded) return; // a real server's new connections have new backends, which pg knows
    const text = 'SELECT $1::int - 1 AS previous';
    expect((await database.sql.rows<{ previous: number }>('test-previous', text, [5]))[0].previous).toBe(4);
    // What a new backend looks like: none of the statements the old one had (app/keep-embedded-database.ts).
    await database.dataSource.query('DEALLOCATE ALL');
    expect(await preparedNamed('test-previous')).toBe(0);
    const rows = await Promise.all([10, 20, 30].map((n) => database.sql.rows<{ previous: number }>('test-previous', text, [n])));
    expect(rows.map((r) => r[0].previous)).toEqual([9, 19, 29]);
    expect(await preparedNamed('test-previous')).toBe(1);
  });
});
