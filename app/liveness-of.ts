import { liveness } from '../src/health/liveness';
import { sanctionsListsHealth } from '../src/sanctions/sanctions-health';
import type { Container } from './container';

/** GET /healthz of a process: the same answer on an API instance's port and on a worker's probe port. */
export function livenessOf(c: Container): ReturnType<typeof liveness> {
  return liveness({
    environment: c.config.environment,
    database: () => c.db.query('SELECT 1'),
    checkEngines: () => c.checkProviders.health(),
    businessRegistries: () => c.businessRegistries.health(),
    sanctionsLists: () => sanctionsListsHealth(c.sanctionsScreening, c.config.sanctions.urls),
  });
}
