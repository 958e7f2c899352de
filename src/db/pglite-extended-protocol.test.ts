import { endsTheSession, mayChangeSession, sqlOf } from './pglite-extended-protocol';

/** A simple Query message: 'Q', int32 length, the text, NUL. */
const query = (sql: string): Uint8Array => {
  const text = Buffer.from(`${sql}\0`, 'utf8');
  const head = Buffer.alloc(5);
  head[0] = 0x51;
  head.writeInt32BE(4 + text.length, 1);
  return Buffer.concat([head, text]);
};

/** A Parse message: 'P', int32 length, statement name, text, parameter count 0. */
const parse = (name: string, sql: string): Uint8Array => {
  const body = Buffer.concat([Buffer.from(`${name}\0${sql}\0`, 'utf8'), Buffer.from([0, 0])]);
  const head = Buffer.alloc(5);
  head[0] = 0x50;
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
};

describe('which statements on the embedded socket may change the shared session', () => {
  it.each([
    'SET session_replication_role = replica',
    '  set search_path = evil',
    '/* hi */ SET statement_timeout = 1',
    '-- note\nRESET ALL',
    "SELECT set_config('session_replication_role', 'replica', false)",
    'BEGIN; SET LOCAL role postgres; COMMIT',
    'CREATE TEMP TABLE sessions (id text)',
    'create temporary view v as select 1',
    'DO $$ BEGIN PERFORM 1; END $$',
    'LISTEN x',
    'SET SESSION AUTHORIZATION postgres',
    'select * from pg_temp.sessions',
  ])('%s does', (sql) => {
    expect(mayChangeSession(sqlOf(query(sql))!)).toBe(true);
    expect(mayChangeSession(sqlOf(parse('', sql))!)).toBe(true);
  });

  it.each([
    'UPDATE sessions SET status = $1 WHERE id = $2',
    'INSERT INTO oidc_payloads (model, id) VALUES ($1, $2) ON CONFLICT (model, id) DO UPDATE SET payload = EXCLUDED.payload',
    'SELECT id, settings FROM tenants WHERE id = $1',
    'DELETE FROM email_codes WHERE expires_at < now()',
    'SELECT 1 AS template_id',
  ])('%s does not', (sql) => {
    expect(mayChangeSession(sqlOf(query(sql))!)).toBe(false);
    expect(mayChangeSession(sqlOf(parse('s1', sql))!)).toBe(false);
  });

  it('reads no SQL from other messages', () => {
    expect(sqlOf(Uint8Array.from([0x53, 0, 0, 0, 4]))).toBeNull(); // Sync
  });
});

/** An ErrorResponse with severity `severity` (fields S, V, C, M, then the terminator). */
const errorResponse = (severity: string): Uint8Array => {
  const body = Buffer.from(`S${severity}\0V${severity}\0C57P05\0Mterminating connection\0\0`, 'utf8');
  const head = Buffer.alloc(5);
  head[0] = 0x45;
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
};
const readyForQuery = Uint8Array.from([0x5a, 0, 0, 0, 5, 0x49]);

describe('which answers end PGlite’s one session (issue #40 finding 3)', () => {
  it('finds a FATAL or PANIC error among the messages of an answer', () => {
    expect(endsTheSession(Buffer.concat([readyForQuery, errorResponse('FATAL')]))).toBe(true);
    expect(endsTheSession(errorResponse('PANIC'))).toBe(true);
  });

  it('does not take an ERROR, a notice or rows for one', () => {
    expect(endsTheSession(Buffer.concat([errorResponse('ERROR'), readyForQuery]))).toBe(false);
    expect(endsTheSession(readyForQuery)).toBe(false);
    expect(endsTheSession(query('SELECT \'SFATAL\''))).toBe(false);
  });
});
