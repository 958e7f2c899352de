import type { DsrJob as DomainDsrJob } from '../src/data-rights/dsr-job.service';
import type { DsrJob } from './dsr-job.type';

export function toDsrJobType(job: DomainDsrJob, opts: { showUser: boolean }): DsrJob {
  return {
    id: job.id,
    kind: job.kind,
    status: job.status,
    reason: job.reason,
    delegated: job.delegatedBy !== null,
    userId: opts.showUser ? job.userId : null,
    createdAt: job.createdAt,
    receivedAt: job.receivedAt,
    acknowledgeBy: job.acknowledgeBy,
    expectedBy: job.expectedBy,
    confirmBy: job.confirmBy,
    confirmedAt: job.confirmedAt,
    completedAt: job.completedAt,
  };
}
