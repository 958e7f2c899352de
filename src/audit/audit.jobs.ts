import type { JobDefinition } from '../jobs/job-definition';
import { AUDIT_REPLICATE_CRON, AUDIT_REPLICATE_JOB, type AuditReplicator } from './audit-replicator';

export const auditJobs: readonly JobDefinition<{ auditReplicator: AuditReplicator }>[] = [
  {
    queue: AUDIT_REPLICATE_JOB,
    worker: ({ auditReplicator }) => ({
      each: async () => {
        const r = await auditReplicator.replicate();
        // A log whose chain does not verify is not signed (audit.replication_refused is in the audit log); the job fails so it is seen and retried.
        if (r.refused.length) throw new Error(`audit replication refused ${r.refused.length} log(s) whose chain does not verify: ${r.refused.map((x) => x.log_id).join(', ')}`);
      },
    }),
    cron: () => AUDIT_REPLICATE_CRON,
  },
];
