import fs from 'node:fs';
import path from 'node:path';

/**
 * The `sessions` table has one owner, src/sessions/ (issue 45, item 5): reads go through SessionReader,
 * writes through SessionService. A file elsewhere that names the table in SQL (a FROM, JOIN, UPDATE or
 * INTO of `sessions` in upper-case SQL, as the project writes it) fails here. Migrations are the
 * table's history, not queries of it, and tests read the database to check what the service did.
 *
 * Where a statement belongs to another table and only reads a session beside its own rows (a hot path
 * kept to one round trip), the session's part is a named SQL piece of src/sessions/ (SessionSql,
 * SessionDataRightsQueries, SessionReader.boundUserSql), so the table's shape is still said in one place.
 */
const ROOT = path.resolve(__dirname, '..');
const SOURCE_DIRS = ['src', 'app', 'web', 'rest-adapter', 'schema', 'http', 'subscriptions'];
const SESSIONS_IN_SQL = /\b(FROM|JOIN|UPDATE|INTO)\s+sessions\b/;

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'migrations' && e.name !== 'node_modules') sourceFiles(rel, out);
    } else if (rel.endsWith('.ts') && !rel.endsWith('.test.ts')) out.push(rel);
  }
  return out;
}

const namingTheTable = SOURCE_DIRS.flatMap((d) => sourceFiles(d))
  .filter((f) => !f.startsWith('src/sessions/'))
  .filter((f) => SESSIONS_IN_SQL.test(fs.readFileSync(path.join(ROOT, f), 'utf8')));

describe('the sessions table has one owner', () => {
  it('no file outside src/sessions/ names the table in SQL', () => {
    expect(namingTheTable).toEqual([]);
  });

  it('the check sees SQL where it is written (a file of src/sessions/ names the table)', () => {
    const owners = sourceFiles('src/sessions').filter((f) => SESSIONS_IN_SQL.test(fs.readFileSync(path.join(ROOT, f), 'utf8')));
    expect(owners.length).toBeGreaterThan(3);
  });
});
