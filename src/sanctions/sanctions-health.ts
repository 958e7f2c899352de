import { publicSourceOf } from './official-sources';
import { LIST_IDS, type ListId } from '../../entities/list-snapshot.document';
import type { SanctionsScreeningService } from './screening.service';

export type ListHealthReport = { version: string | null; loaded_at: string | null; age_seconds: number | null; source: string };

/**
 * The `sanctions_lists` of /healthz: per list, the version in force and its age (from the
 * screening service's memory, as of its last poll: no query on the health route) and where the
 * list is downloaded from (`off` when only the CLI loads it). A list never loaded has nulls.
 */
export function sanctionsListsHealth(screening: Pick<SanctionsScreeningService, 'health'>, urls: Partial<Record<ListId, string>>): Record<ListId, ListHealthReport> {
  const inForce = screening.health();
  const report = {} as Record<ListId, ListHealthReport>;
  for (const l of LIST_IDS) report[l] = { ...(inForce[l] ?? { version: null, loaded_at: null, age_seconds: null }), source: publicSourceOf(urls[l]) };
  return report;
}
