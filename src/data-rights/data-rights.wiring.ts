import type { DataSource } from 'typeorm';
import type { SecretBox } from '../crypto/secret-box';
import type { JobQueue } from '../jobs/job-queue';
import type { Logger } from '../logger';
import type { SessionService } from '../sessions/session.service';
import type { ArtifactPurger } from '../vault/artifact-purger';
import type { WebhookDispatcher } from '../webhooks/webhook.dispatcher';
import { BiometricPurgeService } from './biometric-purge.service';
import type { DataRightsServices } from './data-rights.services';
import type { DsrJobService } from './dsr-job.service';
import { ObjectionService } from './objection.service';
import { ProfileChangeService } from './profile-change.service';
import { ReviewCaseService } from './review-case.service';
import type { ReviewCaseSettlement } from './review-case.settlement';
import type { SocialDataRights } from './social-data-rights';
import type { UserAccessGate } from './user-access.gate';
import { UserErasureService } from './user-erasure.service';
import { UserObligations } from './user-obligations';
import { UserRestrictionService } from './user-restriction.service';

export type DataRightsDeps = {
  db: DataSource;
  jobs: JobQueue;
  logger: Logger;
  sessions: SessionService;
  dsr: DsrJobService;
  purger: ArtifactPurger;
  dispatcher: WebhookDispatcher;
  /** Seals pending verified-field changes like the fields themselves. */
  userDataBox: SecretBox;
  subjectFor: (userId: string, tenantId: string) => Promise<string>;
  revokeGrants: (userId: string) => Promise<unknown>;
  social: SocialDataRights | null;
  /** Built before the sessions, whose reads it guards; the data-rights services ask it too. */
  gate: UserAccessGate;
  /** Built before the sessions too: a decision on a session settles its open review request (their outbox handler). */
  reviewSettlement: ReviewCaseSettlement;
};

/** Builds the user's rights over the user's own data: erasure, restriction, objection, review, rectification, biometric purge (docs/data-rights.md). */
export function buildUserRights(d: DataRightsDeps): DataRightsServices {
  const obligations = new UserObligations(d.db, d.dispatcher, d.subjectFor);
  return {
    gate: d.gate,
    erasure: new UserErasureService(d.db, d.dsr, d.sessions, d.purger, obligations, d.jobs, d.revokeGrants, d.social),
    biometrics: new BiometricPurgeService(d.db, d.dsr, d.purger, d.jobs),
    restriction: new UserRestrictionService(d.db, d.dsr, d.jobs),
    objections: new ObjectionService(d.db, d.dsr, d.social, d.logger),
    reviews: new ReviewCaseService(d.db, d.dsr, d.sessions, d.reviewSettlement, d.jobs),
    profiles: new ProfileChangeService(d.db, d.dsr, d.userDataBox),
  };
}
