import module from 'node:module';

/**
 * Imported first by every entry point (app/cli.ts, app/main.ts, app/worker.ts, src/db/embedded-postgres.process.ts),
 * before any other module loads: node keeps the bytecode it compiles on disk and loads it on the next start
 * instead of compiling again. About a quarter less CPU per CLI run (docs/operations.md, "Node's compile
 * cache"). The folder is NODE_COMPILE_CACHE's when set, otherwise node's default in the temporary directory;
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off. A folder it cannot write (a read-only file system) only means no
 * cache: node reports that in the returned status rather than throwing, and the catch covers any node that does.
 */
try {
  module.enableCompileCache();
} catch {
  // no cache, same behaviour
}
