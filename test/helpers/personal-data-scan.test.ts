import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Database, openDatabase } from '../../src/db/database';
import { findPersonalData, Queryable } from './personal-data-scan';

/** Runs on the embedded PostgreSQL, or DATABASE_URL; its tables live in a schema of this run only. */
describe('the personal-data scan', () => {
  let database: Database;
  let db: Queryable;
  const run = randomBytes(4).toString('hex');
  const schema = `scan_${run}`;
  const v = (s: string) => `${s}-${run}`;

  beforeAll(async () => {
    database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'ivs-unit-')) }, 2);
    db = { query: async (text, values) => ({ rows: await database.dataSource.query(text, values) }) };
    await db.query(`CREATE SCHEMA ${schema}`);
    await db.query(`CREATE TABLE ${schema}.people (id int, email text, tags text[], doc jsonb, raw bytea, n int)`);
    await db.query(`CREATE TABLE ${schema}.job (id int, data jsonb)`);
    await db.query(`INSERT INTO ${schema}.people VALUES (1, $1, $2, $3, convert_to($4, 'UTF8'), 5)`, [
      v('Ada@Example.org'),
      [v('alpha'), v('beta')],
      JSON.stringify({ bio: `the ${v('marker')} here` }),
      `passport ${v('X1234567')}`,
    ]);
    await db.query(`INSERT INTO ${schema}.job VALUES (1, $1)`, [JSON.stringify({ user: v('someone-else') })]);
  }, 120_000);
  afterAll(async () => {
    await db?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await database?.close();
  });

  const mine = (h: { schema: string }) => h.schema !== schema;

  it('finds a value in text (case-insensitively), arrays, jsonb and bytea, in every table', async () => {
    const hits = await findPersonalData(db, [v('ada@example.org'), v('beta'), v('marker'), v('X1234567'), v('someone-else')], mine);
    expect(hits.map((h) => `${h.table}.${h.column}:${h.needle.replace(`-${run}`, '')}`).sort()).toEqual([
      'job.data:someone-else',
      'people.doc:marker',
      'people.email:ada@example.org',
      'people.raw:X1234567',
      'people.tags:beta',
    ]);
  });

  it('reports nothing for values that are absent, and leaves out the places it is told to allow', async () => {
    expect(await findPersonalData(db, [v('never-stored')])).toEqual([]);
    expect(await findPersonalData(db, [v('marker')], (h) => mine(h) || h.column === 'doc')).toEqual([]);
  });

  it('refuses needles so short they would match by chance', async () => {
    await expect(findPersonalData(db, ['ab'])).rejects.toThrow(/too short/);
  });

  it('passes over a schema another test file drops while the scan runs, and still finds the rest', async () => {
    const gone = `scan_gone_${run}`;
    await db.query(`CREATE SCHEMA ${gone}`);
    await db.query(`CREATE TABLE ${gone}.job (data jsonb)`);
    let listed = false;
    // Drops the schema right after the scan has listed the columns, as a file that ends meanwhile does.
    const dropping: Queryable = {
      query: async (text, values) => {
        const result = await db.query(text, values);
        if (!listed && /information_schema\.columns/.test(text)) {
          listed = true;
          await db.query(`DROP SCHEMA ${gone} CASCADE`);
        }
        return result;
      },
    };
    const hits = await findPersonalData(dropping, [v('marker')], mine);
    expect(listed).toBe(true);
    expect(hits.map((h) => `${h.table}.${h.column}`)).toEqual(['people.doc']);
  });

  it('treats LIKE wildcards in a needle literally', async () => {
    expect(await findPersonalData(db, [`a%_e${run}`], mine)).toEqual([]);
  });
});
