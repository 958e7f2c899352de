import type { DataSource } from 'typeorm';
import type { AuditLogService } from '../audit/audit-log.service';
import { HostedCaptureRepository } from '../hosted-flow/hosted-capture.repository';
import { DecisionHistory } from '../sessions/decision-history';
import type { SessionService } from '../sessions/session.service';
import type { EvidenceVault } from '../vault/evidence-vault';
import { CaseFiles } from './case-file';
import { ConsoleDecisions } from './console-decisions';
import { ReviewQueue } from './review-queue';
import { ReviewSettings } from './review-settings';
import { ConsoleSettings } from './console-settings';
import type { TenantService } from '../tenants/tenant.service';
import type { WebhookService } from '../webhooks/webhook.service';
import type { RetentionService } from '../retention/retention.service';
import type { OidcClients } from '../oidc/oidc-clients';
import type { FlowService } from '../flows/flow.service';

/**
 * The work done in the console (docs/console.md): what its queue, case, decision and settings pages call.
 * Who may sign in and act there is src/members/console-services.ts.
 */
export type ConsoleWork = {
  queue: ReviewQueue;
  cases: CaseFiles;
  decisions: ConsoleDecisions;
  settings: ReviewSettings;
  /** The tenant's settings pages: keys, webhooks, retention, redirect URIs, flows. */
  tenantSettings: ConsoleSettings;
};

export type SettingsOwners = {
  tenants: TenantService;
  webhooks: WebhookService;
  retention: RetentionService;
  clients: OidcClients;
  flows: FlowService;
  /** A user's review request kept as decided (src/data-rights/review-case.service.ts, `uphold`). */
  upholdReview: (sessionId: string, note: string, tenantId: string) => Promise<number>;
};

export function buildConsoleWork(db: DataSource, sessions: SessionService, vault: EvidenceVault, audit: AuditLogService, owners: SettingsOwners): ConsoleWork {
  const settings = new ReviewSettings(db, audit);
  const decisions = new ConsoleDecisions(db, sessions, audit, owners.upholdReview);
  const captures = new HostedCaptureRepository(db);
  const cases = new CaseFiles({
    sessions,
    vault,
    history: new DecisionHistory(db),
    audit,
    db,
    businessOf: async (id) => (await captures.tierDetails(id)).business,
    challengeActions: async (id) => (await captures.find(id))?.challenge?.steps.map((s) => s.action) ?? [],
    pendingDecline: (tenantId, id) => decisions.pendingDecline(tenantId, id),
  });
  return { queue: new ReviewQueue(db), cases, decisions, settings, tenantSettings: new ConsoleSettings({ ...owners, audit }) };
}
