/** What /healthz reports besides the database: each part answers from memory (engines, registries, lists). */
export type LivenessParts = {
  environment: string;
  /** The one query of the probe (`SELECT 1`). */
  database: () => Promise<unknown>;
  checkEngines: () => unknown;
  businessRegistries: () => unknown;
  sanctionsLists: () => unknown;
};

/**
 * The liveness answer of /healthz (docs/operations.md, "Probes"): one query and the rest from
 * memory, so a probe every few seconds costs nothing. `ok` is false only when the database is down.
 */
export async function liveness(p: LivenessParts): Promise<{ ok: boolean; body: Record<string, unknown> }> {
  try {
    await p.database();
    return { ok: true, body: { status: 'ok', environment: p.environment, database: 'up', check_engines: p.checkEngines(), business_registries: p.businessRegistries(), sanctions_lists: p.sanctionsLists() } };
  } catch {
    return { ok: false, body: { status: 'degraded', environment: p.environment, database: 'down', sanctions_lists: p.sanctionsLists() } };
  }
}
