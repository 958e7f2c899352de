/**
 * The "nothing left behind" scan of docs/data-rights.md: reads information_schema for every column
 * of every table of the database (all schemas but PostgreSQL's own, so pg-boss's job tables too)
 * whose values can carry text (text and character types, json and jsonb, bytea, arrays of any of
 * them, and user-defined types cast to text), and looks for each needle in each of them. A needle is
 * found in bytea as raw UTF-8 bytes, elsewhere in the value's text form, case-insensitively.
 *
 * It works on anything with pg's `query(text, values)` (a `pg.Client`, a pool, or PGlite).
 */
export type Queryable = { query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }> };

export type ScanHit = { schema: string; table: string; column: string; needle: string; sample: string };

type ColumnInfo = { table_schema: string; table_name: string; column_name: string; data_type: string; udt_name: string };

const TEXTUAL = new Set(['text', 'character varying', 'character', 'json', 'jsonb', 'bytea', 'ARRAY', 'USER-DEFINED', 'name', 'xml', 'tsvector']);

const ident = (s: string): string => `"${s.replace(/"/g, '""')}"`;
const likePattern = (needle: string): string => `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Every column that could hold one of the needles, in a stable order. */
export async function textualColumns(db: Queryable): Promise<ColumnInfo[]> {
  const { rows } = await db.query(
    `SELECT c.table_schema, c.table_name, c.column_name, c.data_type, c.udt_name
       FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE t.table_type = 'BASE TABLE'
        AND c.table_schema NOT IN ('pg_catalog', 'information_schema')
        AND c.table_schema NOT LIKE 'pg_toast%'
      ORDER BY c.table_schema, c.table_name, c.ordinal_position`,
  );
  return (rows as ColumnInfo[]).filter((c) => TEXTUAL.has(c.data_type));
}

/**
 * A query's rows, or none when its table or schema was dropped after the listing: other test files
 * share the database (on PostgreSQL, each with its own job schema, dropped when it ends), and a
 * table that no longer exists holds nothing.
 */
async function rowsUnlessDropped(db: Queryable, text: string, values: unknown[]): Promise<unknown[]> {
  try {
    return (await db.query(text, values)).rows;
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === '42P01' || code === '3F000') return []; // undefined_table, invalid_schema_name
    throw e;
  }
}

/**
 * Where each needle occurs. `allow(hit)` answers true for the places a value may stay (for example
 * an audit entry's hash, which is never the value itself; or a column the caller knows holds only
 * another user's data). Needles shorter than 4 characters are refused: they would match by chance.
 */
export async function findPersonalData(db: Queryable, needles: readonly string[], allow: (hit: ScanHit) => boolean = () => false): Promise<ScanHit[]> {
  for (const n of needles) if (n.length < 4) throw new Error(`needle too short to scan for: ${JSON.stringify(n)}`);
  const hits: ScanHit[] = [];
  for (const c of await textualColumns(db)) {
    const table = `${ident(c.table_schema)}.${ident(c.table_name)}`;
    const col = ident(c.column_name);
    for (const needle of needles) {
      const bytea = c.data_type === 'bytea';
      const where = bytea ? `position(convert_to($1, 'UTF8') in ${col}) > 0` : `${col}::text ILIKE $1`;
      const sample = bytea ? `encode(substring(${col} from 1 for 64), 'escape')` : `left(${col}::text, 200)`;
      const rows = await rowsUnlessDropped(db, `SELECT ${sample} AS sample FROM ${table} WHERE ${where} LIMIT 1`, [bytea ? needle : likePattern(needle)]);
      if (rows.length === 0) continue;
      const hit = { schema: c.table_schema, table: c.table_name, column: c.column_name, needle, sample: String((rows[0] as { sample: unknown }).sample) };
      if (!allow(hit)) hits.push(hit);
    }
  }
  return hits;
}
