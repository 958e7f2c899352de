/**
 * The database's process runs PostgreSQL's WebAssembly on V8's baseline compiler only (Liftoff). With the
 * optimising tier, V8 recompiles in background threads whatever a start and its first queries made hot: 1.3 s
 * more CPU per start on a migrated database (2.3-2.7 against 0.8-1.05 s), which short statements never earn back
 * (30,000 inserts and lookups took the same time either way), while a sort or aggregate over 200,000 rows runs
 * about 1.4x slower. The embedded database serves a developer, a trial and the tests; volumes belong on a
 * PostgreSQL server (docs/benchmarks.md, "The test realm's globals, and the embedded database's start").
 */
export const DATABASE_PROCESS_V8_FLAGS = ['--liftoff-only'];
