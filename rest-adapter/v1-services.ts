import type { BulkImportService } from '../src/bulk-import/bulk-import.service';
import type { ChipSubmissionService } from '../src/chip/chip-submission.service';
import type { DataRights } from '../src/data-rights/data-rights';
import type { DataRightsServices } from '../src/data-rights/data-rights.services';
import type { DsrJobService } from '../src/data-rights/dsr-job.service';
import type { FlowService } from '../src/flows/flow.service';
import type { HostedLink } from '../src/hosted-flow/hosted-link';
import type { RetentionService } from '../src/retention/retention.service';
import type { DecisionHistory } from '../src/sessions/decision-history';
import type { SessionService } from '../src/sessions/session.service';
import type { EvidenceAccessService } from '../src/vault/evidence-access.service';
import type { WebhookService } from '../src/webhooks/webhook.service';
import type { MeService } from '../src/users/me.service';

/** The services the /v1 route records call: every record's handler is one call into one of these. */
export type V1Services = {
  sessions: SessionService;
  /** The hosted page's link: in the create answer, and in a tenant key's reads while the session is open (D21). */
  hostedLink: HostedLink;
  evidence: Pick<EvidenceAccessService, 'signerFor'>;
  decisions: DecisionHistory;
  chip: ChipSubmissionService;
  webhooks: WebhookService;
  retention: RetentionService;
  flows: FlowService;
  /** The end user's own account and data rights (the /v1/me records). */
  me: MeService;
  userRights: DataRightsServices;
  dataRights: Pick<DataRights, 'exports' | 'delegated'>;
  dsrJobs: DsrJobService;
  bulkImports: BulkImportService;
  /** The hosted link of a session, in the bulk import's results. */
  hostedUrl: (sessionId: string) => string;
};
