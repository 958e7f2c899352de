import type { DataSource } from 'typeorm';
import type { CheckEnginesHealth } from '../checks/live-providers';
import { NotReady, type ReadinessCheck } from './readiness';

/**
 * What this process needs before it takes traffic: its database, the schema at the migrations this
 * build carries, the job queue, and, where this process runs the checks (WORKER_ENABLED), engines
 * that have not failed to start. The embedded models load on the first live check by design
 * (src/checks/live-providers.ts), so `idle` and `loading` count as ready; `failed` does not.
 */
export function readinessChecks(deps: {
  db: DataSource;
  /** Set when this process keeps the embedded database's own process running (src/db/embedded-database-keeper.ts). */
  embedded?: { readonly restarting: boolean } | null;
  jobs: { ready(): Promise<void> };
  engines: { health(): CheckEnginesHealth } | null;
}): ReadinessCheck[] {
  // This build's migrations cannot be unapplied once they are in: after the first yes, a probe does not ask again.
  let migrated = false;
  const checks: ReadinessCheck[] = [
    {
      name: 'database',
      check: async () => {
        if (deps.embedded?.restarting) throw new NotReady('database_restarting', 'the embedded database is being started again');
        await deps.db.query('SELECT 1');
      },
      failure: { code: 'unavailable', reason: 'the database does not answer' },
    },
    {
      name: 'migrations',
      check: async () => {
        if (migrated) return;
        if (await deps.db.showMigrations()) throw new NotReady('migrations_pending', "this build's migrations are not applied yet");
        migrated = true;
      },
      failure: { code: 'unavailable', reason: 'the migrations could not be read' },
    },
    { name: 'job_queue', check: () => deps.jobs.ready(), failure: { code: 'unavailable', reason: 'the job queue does not answer' } },
  ];
  const engines = deps.engines;
  if (engines) {
    checks.push({
      name: 'check_engines',
      check: async () => {
        if (engines.health().embedded_models === 'failed') throw new NotReady('failed', 'the embedded check engines failed to start');
      },
      failure: { code: 'failed', reason: 'the check engines could not be read' },
    });
  }
  return checks;
}
