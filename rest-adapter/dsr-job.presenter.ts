import type { DsrJob } from '../src/data-rights/dsr-job.service';

/** The REST body of a DSR job (docs/data-rights.md, "DSR jobs"); `extra` carries what a kind adds for its user (an export's link and key). */
export type DsrJobBody = {
  id: string;
  object: 'dsr_job';
  kind: string;
  status: string;
  reason: string | null;
  delegated: boolean;
  received_at: string;
  acknowledge_by: string;
  expected_by: string;
  confirm_by: string | null;
  completed_at: string | null;
  [extra: string]: unknown;
};

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function presentDsrJob(job: DsrJob, extra: Record<string, unknown> = {}): DsrJobBody {
  return {
    id: job.id,
    object: 'dsr_job',
    kind: job.kind,
    status: job.status,
    reason: job.reason,
    delegated: job.delegatedBy !== null,
    received_at: job.receivedAt.toISOString(),
    acknowledge_by: job.acknowledgeBy.toISOString(),
    expected_by: job.expectedBy.toISOString(),
    confirm_by: iso(job.confirmBy),
    completed_at: iso(job.completedAt),
    ...extra,
  };
}
