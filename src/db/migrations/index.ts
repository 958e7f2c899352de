import { InitialSchema1763780000000 } from './1763780000000-initial-schema';
import { CscaCertificates1763790700000 } from './1763790700000-csca-certificates';
import { Webhooks1763791000000 } from './1763791000000-webhooks';
import { RateLimitOverrides1763792000000 } from './1763792000000-rate-limit-overrides';
import { SanctionsLists1763793000000 } from './1763793000000-sanctions-lists';
import { SanctionsSnapshotGzip1763793100000 } from './1763793100000-sanctions-snapshot-gzip';
import { PublicIdsForAttemptsAndAudit1764000000000 } from './1764000000000-public-ids-for-attempts-and-audit';
import { SanctionsHitReferences1764200000000 } from './1764200000000-sanctions-hit-references';
import { EvidenceVault1764300000000 } from './1764300000000-evidence-vault';
import { UsersAndOidc1764400000000 } from './1764400000000-users-and-oidc';
import { SessionUserSub1764400100000 } from './1764400100000-session-user-sub';
import { AuditChain1764500000000 } from './1764500000000-audit-chain';
import { TenantRetention1764500100000 } from './1764500100000-tenant-retention';
import { DsrJobs1764600000000 } from './1764600000000-dsr-jobs';
import { UserDataLifecycle1764650000000 } from './1764650000000-user-data-lifecycle';
import { HostedTierSteps1764730000000 } from './1764730000000-hosted-tier-steps';
import { MailSubjectSealed1764870000000 } from './1764870000000-mail-subject-sealed';
import { KeepVerificationGrant1764900000000 } from './1764900000000-keep-verification-grant';
import { AppRole1764900000001 } from './1764900000001-app-role';
import { SessionDecisions1764920000000 } from './1764920000000-session-decisions';
import { ConsoleMembers1764950000000 } from './1764950000000-console-members';
import { ConsoleReview1764955000000 } from './1764955000000-console-review';
import { BulkImports1764960000000 } from './1764960000000-bulk-imports';
import { VaultBlobKeys1764970000000 } from './1764970000000-vault-blob-keys';
import { DigitalIdTrustRoots1764980000000 } from './1764980000000-digital-id-trust-roots';
import { DigitalIdRequests1764980000001 } from './1764980000001-digital-id-requests';

/** Every migration in order. Schema changes are migrations, never `synchronize`. */
export const MIGRATIONS = [InitialSchema1763780000000, CscaCertificates1763790700000, Webhooks1763791000000, RateLimitOverrides1763792000000, SanctionsLists1763793000000, SanctionsSnapshotGzip1763793100000, PublicIdsForAttemptsAndAudit1764000000000, SanctionsHitReferences1764200000000, EvidenceVault1764300000000, UsersAndOidc1764400000000, SessionUserSub1764400100000, AuditChain1764500000000, TenantRetention1764500100000, DsrJobs1764600000000, UserDataLifecycle1764650000000, HostedTierSteps1764730000000, MailSubjectSealed1764870000000, KeepVerificationGrant1764900000000, AppRole1764900000001, SessionDecisions1764920000000, ConsoleMembers1764950000000, ConsoleReview1764955000000, BulkImports1764960000000, VaultBlobKeys1764970000000, DigitalIdTrustRoots1764980000000, DigitalIdRequests1764980000001];
