import { DigitalIdService } from '../src/digital-id/digital-id.service';
import { DigitalIdTrustStore } from '../src/digital-id/digital-id-trust.store';
import { httpCrlFetcher, httpStatusListCwtFetcher, httpStatusListFetcher } from '../src/digital-id/status-list-fetcher';
import { VerifierSigningKey } from '../src/crypto/verifier-signing-key';
import type { GraphQLSchema } from 'graphql';
import { DataSource } from 'typeorm';
import { buildGraphQLSchema } from '../schema/build-schema';
import { CompiledOperations } from '../schema/compiled-operations';
import { ApiKeyResolver } from '../schema/api-key.resolver';
import { CscaResolver } from '../schema/csca.resolver';
import { RateLimitResolver } from '../schema/rate-limit.resolver';
import { SanctionsResolver } from '../schema/sanctions.resolver';
import { SessionResolver } from '../schema/session.resolver';
import { FlowResolver } from '../schema/flow.resolver';
import { FlowService } from '../src/flows/flow.service';
import { SessionSubscriptionResolver } from '../schema/session-subscription.resolver';
import { WebhookResolver } from '../schema/webhook.resolver';
import { SessionStatusHub } from '../src/sessions/session-status.hub';
import { createStatusBus } from '../src/sessions/status-bus';
import { AuthService } from '../src/auth/auth.service';
import { ChipSubmissionService } from '../src/chip/chip-submission.service';
import { PostgresCscaTrustStore } from '../src/chip/postgres-csca.trust-store';
import type { Config } from '../src/config';
import { ContextFactory } from '../src/context';
import { Database, openDatabase } from '../src/db/database';
import { EVIDENCE_LINK, HOSTED_PAGE_LINK, SignedLinks } from '../src/links/signed-links';
import { HostedLink } from '../src/hosted-flow/hosted-link';
import { PrometheusMetrics } from '../src/metrics/prometheus-metrics';
import { Readiness } from '../src/health/readiness';
import { readinessChecks } from '../src/health/readiness-checks';
import { measuredCheckProviders } from '../src/checks/measured-check-providers';
import { JobQueue } from '../src/jobs/job-queue';
import { BulkImportService } from '../src/bulk-import/bulk-import.service';
import { BulkImportJob } from '../src/bulk-import/bulk-import.job';
import { BulkImportResolver } from '../schema/bulk-import.resolver';
import { WebhookListenResolver } from '../schema/webhook-listen.resolver';
import { WebhookEventFeed } from '../src/webhooks/webhook-event.feed';
import { ensureJobQueues, startWorkers } from './job-registry';
import type { Logger } from '../src/logger';
import { RateLimitOverrides } from '../src/rate-limit/rate-limit-overrides';
import { RateLimitService } from '../src/rate-limit/rate-limit.service';
import { RefreshSanctionsJob } from '../src/sanctions/refresh-sanctions.job';
import { SanctionsListRepository } from '../src/sanctions/sanctions-list.repository';
import { SanctionsListService } from '../src/sanctions/sanctions-list.service';
import { SanctionsScreeningService } from '../src/sanctions/screening.service';
import { SessionService } from '../src/sessions/session.service';
import { SessionWatchService } from '../src/sessions/session-watch.service';
import { TenantService } from '../src/tenants/tenant.service';
import { DeliverWebhookJob } from '../src/webhooks/deliver-webhook.job';
import { WebhookDispatcher } from '../src/webhooks/webhook.dispatcher';
import { WebhookService } from '../src/webhooks/webhook.service';
import { WebhookSecretBox } from '../src/webhooks/webhook-secret.box';
import { RunChecksJob } from '../src/verification/run-checks.job';
import { createLiveCheckProviders, type LiveCheckProviders } from '../src/checks/live-providers';
import { HostedFlowService } from '../src/hosted-flow/hosted-flow.service';
import { HostedCaptureRepository } from '../src/hosted-flow/hosted-capture.repository';
import { T5DecisionGate } from '../src/hosted-flow/t5-decision';
import { PageCredentials } from '../src/hosted-flow/page-credentials';
import { EvidenceAccessService } from '../src/vault/evidence-access.service';
import { EvidenceVault } from '../src/vault/evidence-vault';
import { PostgresArtifactStore } from '../src/vault/postgres-artifact-store';
import { BlobReaper } from '../src/vault/blob-reaper';
import { createBlobStore } from '../src/vault/create-blob-store';
import { VaultKeys } from '../src/vault/vault-keys';
import { buildAccounts, type Accounts } from '../src/users/accounts';
import { updateServiceVerification } from '../src/users/service-verification.updater';
import { KeepVerificationService } from '../src/hosted-flow/keep-verification.service';
import { AccountsResolver } from '../schema/accounts.resolver';
import { AuditLogService } from '../src/audit/audit-log.service';
import { ArtifactPurger } from '../src/vault/artifact-purger';
import { RetentionService } from '../src/retention/retention.service';
import { RetentionReclassifier } from '../src/retention/retention-reclassifier';
import { RetentionRunService } from '../src/retention/retention-run.service';
import { RetentionResolver } from '../schema/retention.resolver';
import { AuditResolver } from '../schema/audit.resolver';
import { AuditLogQuery } from '../src/audit/audit-log.query';
import { AuditReplicator } from '../src/audit/audit-replicator';
import { loadAuditSigningKey } from '../src/audit/audit-signing-key';
import { wormStoreFor } from './worm-store.factory';
import { DsrJobService } from '../src/data-rights/dsr-job.service';
import { queueDelegatedCallback } from '../src/data-rights/delegated/delegated-request.service';
import { DsrJobResolver } from '../schema/dsr-job.resolver';
import { buildDataRights, type DataRights } from '../src/data-rights/data-rights';
import { buildUserRights } from '../src/data-rights/data-rights.wiring';
import type { DataRightsServices } from '../src/data-rights/data-rights.services';
import { queueExportReadyMail } from '../src/data-rights/dsr-mail';
import { ReviewCaseSettlement } from '../src/data-rights/review-case.settlement';
import { LISTABLE_SESSION_SQL, UserAccessGate } from '../src/data-rights/user-access.gate';
import { withRestrictionPause } from '../src/data-rights/user-restriction.service';
import { DataRightsResolver } from '../schema/data-rights.resolver';
import { SessionDecisionResolver } from '../schema/session-decision.resolver';
import { DecisionHistory } from '../src/sessions/decision-history';
import { GatewaySigningKey } from '../src/gateway/gateway-signing-key';
import { withBusyRequeue } from '../src/verification/busy-requeue';
import { ServiceActorIssuer } from '../src/gateway/service-actor';
import { createBusinessRegistries, type BusinessRegistries } from '../src/registries/registries';
import { buildConsoleServices, type ConsoleServices } from '../src/members/console-services';
import { buildConsoleWork, type ConsoleWork } from '../src/console/console-work';
import { SecondReviewerRule } from '../src/console/second-reviewer-rule';

/** Every long-lived object of one process, built once and wired by hand. */
export type Container = {
  config: Config;
  logger: Logger;
  database: Database;
  db: DataSource;
  jobs: JobQueue;
  auth: AuthService;
  tenants: TenantService;
  sessions: SessionService;
  webhooks: WebhookService;
  cscaTrustStore: PostgresCscaTrustStore;
  chip: ChipSubmissionService;
  links: SignedLinks;
  /** Who gets a session's hosted URL, and when (D21). */
  hostedLink: HostedLink;
  /** Signs the Service-Actor header of the gateway proxy and the data-rights contract (docs/decisions.md D18). */
  serviceActors: ServiceActorIssuer;
  /** Encrypted artifacts (docs/hosted-flow.md "Evidence vault"). */
  vault: EvidenceVault;
  evidence: EvidenceAccessService;
  /** The hash-chained audit logs' only writer (docs/retention-and-audit.md). */
  audit: AuditLogService;
  /** Deletes artifacts' bytes, audited, with `biometric.purged` for biometric classes. */
  purger: ArtifactPurger;
  webhookDispatcher: WebhookDispatcher;
  /** Per-tenant retention, the nightly pass and the purge runs (docs/retention-and-audit.md). */
  retention: RetentionService;
  retentionRuns: RetentionRunService;
  hostedFlow: HostedFlowService;
  digitalIds: DigitalIdService;
  flows: FlowService;
  /** The engines live sessions' checks run on, from CHECK_*_ENGINE; test mode uses the deterministic ones whatever this is. */
  checkProviders: LiveCheckProviders;
  /** The T4 business registries, from REGISTRY_* and their credentials (docs/checks.md, "Business registries"). */
  businessRegistries: BusinessRegistries;
  /** Every data-subject request (docs/data-rights.md). */
  dsrJobs: DsrJobService;
  contexts: ContextFactory;
  /** Null when RATE_LIMIT_ENABLED=false. */
  rateLimits: RateLimitService | null;
  rateLimitOverrides: RateLimitOverrides;
  /** Routes committed status changes (in-process, or through Redis between instances) to WebSocket subscribers. */
  statusHub: SessionStatusHub;
  sanctionsLists: SanctionsListService;
  /** This process's screening index, kept equal to the list versions in force. */
  sanctionsScreening: SanctionsScreeningService;
  schema: GraphQLSchema;
  /** The schema's operations compiled with graphql-jit, for Apollo and the REST adapter alike. */
  operations: CompiledOperations;
  /** End users, the mail outbox and the OpenID Provider (docs/accounts-and-oidc.md). */
  accounts: Accounts;
  /** Exports, the social upstream's data-rights contract, delegated requests (docs/data-rights.md). */
  dataRights: DataRights;
  /** Erasure, restriction, objection, review, rectification, biometric purge (docs/data-rights.md). */
  userRights: DataRightsServices;
  /** "Keep this verification in your account" at the end of the hosted flow (docs/accounts-and-oidc.md). */
  keepVerification: KeepVerificationService;
  /** Tenant staff, their invitations, console sign-ins and second factors (docs/console.md). */
  console: ConsoleServices;
  /** The console's queue, cases, decisions and settings pages (docs/console.md). */
  consoleWork: ConsoleWork;
  /** Sessions created in bulk from an uploaded file (docs/api-behaviour.md, "Bulk import"). */
  bulkImports: BulkImportService;
  /** The tenant's test-mode webhook events as they are committed, for `webhooks listen` (D23). */
  webhookEvents: WebhookEventFeed;
  /** The Prometheus registry of this process, and the port the services report to (docs/operations.md, "Metrics"). */
  metrics: PrometheusMetrics;
  /** What /readyz waits for; `drain()` at shutdown. */
  readiness: Readiness;
  close(): Promise<void>;
};

export async function buildContainer(config: Config, logger: Logger): Promise<Container> {
  const database = await openDatabase(config);
  const db = database.dataSource;
  let jobs: JobQueue;
  try {
    jobs = await JobQueue.start(database.ownerTarget, logger, { pollSeconds: config.jobPollSeconds, supervise: config.workerEnabled, superviseSeconds: config.jobSuperviseSeconds, schema: config.jobSchema, retryScale: config.jobRetryScale, appRole: database.appRole });
  } catch (err) {
    await database.close();
    throw err;
  }
  try {
    // Queues sent to inside transactions exist before any service can send to them.
    await ensureJobQueues(jobs);
  } catch (err) {
    await jobs.stop();
    await database.close();
    throw err;
  }
  const sanctionsRepo = new SanctionsListRepository(db);
  const sanctionsLists = new SanctionsListService(sanctionsRepo);
  const sanctionsScreening = new SanctionsScreeningService(sanctionsRepo, logger, config.sanctions.pollMs);
  // Read at each scrape: the queues' depth and the lists' age.
  const metrics = new PrometheusMetrics({
    queues: () => jobs.stats(),
    sanctionsListAges: () => Object.fromEntries(Object.entries(sanctionsScreening.health()).map(([list, h]) => [list, h?.age_seconds ?? null])),
  });
  const tenants = new TenantService(db);
  const links = await SignedLinks.load(db, HOSTED_PAGE_LINK, config.publicBaseUrl);
  const hostedLink = new HostedLink(links);
  const serviceActors = new ServiceActorIssuer(await GatewaySigningKey.load(db), config.publicBaseUrl, config.dataRights.socialUpstreamUrl ?? config.publicBaseUrl);
  const statusBus = createStatusBus(config.redisUrl, logger);
  if (!config.workerEnabled && !config.redisUrl) {
    // Decisions are committed by the workers, and published on their own in-process bus (docs/operations.md, "Workers").
    logger.warn('WORKER_ENABLED=false without REDIS_URL: status changes the workers commit reach webhooks and reads, but not this instance\'s WebSocket subscribers');
  }
  // The data-rights rule on reads (docs/data-rights.md): deleted users' sessions read as absent to tenants, restricted
  // users' as 409 user_restricted; asked by the sessions, their WebSocket watches and the evidence links alike.
  const userGate = new UserAccessGate(db);
  const sessionWatches = new SessionWatchService(db, (actor, s) => userGate.filter(actor, s));
  const statusHub = new SessionStatusHub(statusBus, sessionWatches, logger);
  try {
    await statusHub.start();
  } catch (err) {
    await statusBus.close();
    await jobs.stop();
    await database.close();
    throw err;
  }
  const accounts = await buildAccounts(db, database.sql, config);
  const auth = new AuthService(db, database.sql, accounts.accessTokens);
  const webhookBox = await WebhookSecretBox.load(db, config.webhooks.secretKey);
  // A job whose worker died is taken back once the longest attempt is surely over.
  const webhookDispatcher = new WebhookDispatcher(jobs, { expireInSeconds: Math.ceil(config.webhooks.timeoutMs / 1000) + 5, db });
  // Human decisions and every data-request step are audited in their own transactions (docs/retention-and-audit.md).
  const audit = new AuditLogService(db);
  const webhooks = new WebhookService(db, webhookBox, webhookDispatcher, { allowPrivateTargets: config.webhooks.allowPrivateTargets });
  const artifactStore = new PostgresArtifactStore(db, database.sql);
  const retention = new RetentionService(db, audit);
  // Where artifact ciphertext lives (VAULT_STORE); null keeps it in artifact_blobs.
  const blobs = await createBlobStore(config);
  const blobReaper = blobs ? new BlobReaper(artifactStore, blobs, jobs) : null;
  const vault = new EvidenceVault(artifactStore, await VaultKeys.load(db, config.vault.masterKey), { blobs });
  const purger = new ArtifactPurger(db, artifactStore, audit, webhookDispatcher, { reaper: blobReaper });
  // Settled data requests queue their follow-ups: a delegated request's callback, a user's export-ready mail.
  const delegatedCallback = queueDelegatedCallback(jobs);
  const exportReadyMail = queueExportReadyMail(jobs);
  const dsrJobs = new DsrJobService(db, (entries, m) => audit.appendMany(entries, m), async (job, m) => {
    await delegatedCallback(job, m);
    await exportReadyMail(job, m);
  });
  const reviewSettlement = new ReviewCaseSettlement(dsrJobs, jobs);
  const sessions = new SessionService(
    db,
    database.sql,
    jobs,
    {
      userOfSubject: (tenantId, sub) => accounts.users.userIdForSubject(tenantId, sub),
      subjectOf: (userId, tenantId) => accounts.users.subjectFor(userId, tenantId),
      assertBindable: (userId) => userGate.assertProcessable(userId), // no session is bound to a restricted or deleted user
      guardRead: (actor, s) => userGate.filter(actor, s),
      listCondition: LISTABLE_SESSION_SQL,
      // Every decision that ends in a decline, on every path (issue 40, finding 4).
      declines: new SecondReviewerRule(audit),
    },
    {
      audit: (entry, m) => audit.append(entry, m),
      // In the transaction that writes the events: webhook deliveries, 0-day artifacts' purge when their session ends,
      // and the user's service_verification; a person's decision also settles the user's open review request.
      outboxHandlers: [webhookDispatcher.onOutbox, purger.onOutbox, updateServiceVerification, reviewSettlement.onOutbox],
      // Published only after the commit (docs/api-behaviour.md, "Session lifecycle"); with Redis every instance, this one included, receives it.
      committed: statusHub.publishCommitted,
    },
  );
  const retentionRuns = new RetentionRunService(db, new RetentionReclassifier(db), purger, audit);
  // Evidence links are their own credential: the rule is asked when one is opened, so a restriction or an erasure ends them at once.
  const evidenceLinks = await SignedLinks.load(db, EVIDENCE_LINK, config.publicBaseUrl);
  const evidence = new EvidenceAccessService(audit, vault, evidenceLinks, (session) => (session.userId ? userGate.refusalFor(session.userId, 'Evidence') : Promise.resolve(null)));
  const flows = new FlowService(db, audit);
  const hostedFlow = new HostedFlowService(db, sessions, links, await PageCredentials.load(db), vault, jobs, { metrics });
  const keepVerification = new KeepVerificationService(hostedFlow, sessions, flows);
  const verifierSigning = config.digitalId.verifierSigning ? VerifierSigningKey.load(config.digitalId.verifierSigning, config.publicBaseUrl) : null;
  if (verifierSigning) logger.info({ clientId: verifierSigning.clientId }, 'digital ID requests are signed with the verifier certificate');
  else logger.info('digital ID requests are unsigned: no verifier key configured (DIGITAL_ID_VERIFIER_KEY, DIGITAL_ID_VERIFIER_CERTIFICATE)');
  const digitalIds = new DigitalIdService(db, vault, new DigitalIdTrustStore(db), config.publicBaseUrl, logger, httpStatusListFetcher(), httpCrlFetcher(), httpStatusListCwtFetcher(), verifierSigning);
  // The one place the live engines are chosen (docs/checks.md); the offline models load on the first live check,
  // and never in an instance that runs no jobs: its sessions are decided by `npm run worker` processes.
  // A jobs-tier worker (WORKER_QUEUES=jobs) takes no check jobs, so it loads no engine either.
  const runsChecks = config.workerEnabled && config.workerQueues !== 'jobs';
  const checkProviders = measuredCheckProviders(createLiveCheckProviders(config.checks, logger, { runsChecks }), config.checks.engines, metrics);
  const businessRegistries = createBusinessRegistries(config.registries, logger);
  const cscaTrustStore = new PostgresCscaTrustStore(db);
  const chip = new ChipSubmissionService(sessions, cscaTrustStore, vault, new T5DecisionGate(new HostedCaptureRepository(db)), jobs);
  const contexts = new ContextFactory(auth, hostedFlow);
  const dataRights = await buildDataRights({ db, config, jobs, dsrJobs, accounts, serviceActors });
  const userRights = buildUserRights({
    db,
    jobs,
    logger,
    sessions,
    dsr: dsrJobs,
    purger,
    dispatcher: webhookDispatcher,
    userDataBox: accounts.box,
    subjectFor: (userId, tenantId) => accounts.users.subjectFor(userId, tenantId),
    revokeGrants: (userId) => accounts.revokeAllGrantsOf(userId),
    social: dataRights.social,
    gate: userGate,
    reviewSettlement,
  });
  const bulkImports = new BulkImportService(db, accounts.box, jobs, config.bulkImport.leaseSeconds);
  const rateLimitOverrides = new RateLimitOverrides(db);
  const rateLimits = config.rateLimit.enabled
    ? RateLimitService.create(rateLimitOverrides, logger, { redisUrl: config.redisUrl, keyPrefix: config.rateLimit.redisPrefix, metrics })
    : null;
  sanctionsScreening.start();
  const resolvers = new Map<unknown, unknown>([
    [SessionResolver, new SessionResolver(sessions, hostedLink, evidence)],
    [SessionSubscriptionResolver, new SessionSubscriptionResolver()],
    [ApiKeyResolver, new ApiKeyResolver(tenants)],
    [WebhookResolver, new WebhookResolver(webhooks)],
    [CscaResolver, new CscaResolver(cscaTrustStore)],
    [FlowResolver, new FlowResolver(flows)],
    [RateLimitResolver, new RateLimitResolver(rateLimitOverrides)],
    [SanctionsResolver, new SanctionsResolver(sanctionsLists, sanctionsScreening)],
    [AccountsResolver, new AccountsResolver(accounts.me, accounts.clients, accounts.userTokens)],
    [RetentionResolver, new RetentionResolver(retention, retentionRuns)],
    [AuditResolver, new AuditResolver(new AuditLogQuery(db))],
    [DsrJobResolver, new DsrJobResolver(dsrJobs)],
    [DataRightsResolver, new DataRightsResolver(userRights, accounts.userTokens)],
    [SessionDecisionResolver, new SessionDecisionResolver(new DecisionHistory(db), sessions, evidence)],
    [BulkImportResolver, new BulkImportResolver(bulkImports)],
    [WebhookListenResolver, new WebhookListenResolver()],
  ]);
  const schema = buildGraphQLSchema({ get: (cls) => resolvers.get(cls) });
  if (config.workerEnabled) {
    await startWorkers(jobs, {
      db,
      config,
      logger,
      jobs,
      sessions,
      mailSweepCron: config.accounts.mailSweepCron,
      sanctionsScreening,
      runChecks: withRestrictionPause(withBusyRequeue(new RunChecksJob(db, sessions, vault, checkProviders, logger, sanctionsScreening, businessRegistries.checks), jobs, logger), db, userRights.gate, jobs),
      webhookDelivery: {
        job: new DeliverWebhookJob(db, webhookBox, webhookDispatcher, logger, { timeoutMs: config.webhooks.timeoutMs, retryScale: config.webhooks.retryScale, allowPrivateTargets: config.webhooks.allowPrivateTargets }, audit, metrics),
        concurrency: config.webhooks.concurrency,
      },
      retentionRuns,
      blobReaper,
      bulkImport: new BulkImportJob(db, accounts.box, sessions, accounts.mail, (id) => links.url(id), jobs, logger, config.bulkImport),
      auditReplicator: new AuditReplicator(db, await wormStoreFor(config), await loadAuditSigningKey(db, config.audit.signingKey), audit),
      sanctionsRefresh: new RefreshSanctionsJob(sanctionsLists, logger, {
        urls: config.sanctions.urls,
        timeoutMs: config.sanctions.fetchTimeoutMs,
        maxBytes: config.sanctions.maxDownloadBytes,
        retrySeconds: config.sanctions.retrySeconds,
      }),
      sanctionsRefreshCron: config.sanctions.refreshCron,
      dsrJobs,
      accounts,
      vault,
      dataRights,
      userRights,
    }, config.workerQueues);
  }

  return {
    config,
    logger,
    database,
    db,
    jobs,
    auth,
    tenants,
    sessions,
    webhooks,
    cscaTrustStore,
    chip,
    links,
    hostedLink,
    serviceActors,
    vault,
    evidence,
    audit,
    purger,
    webhookDispatcher,
    retention,
    retentionRuns,
    hostedFlow,
    digitalIds,
    flows,
    checkProviders,
    businessRegistries,
    dsrJobs,
    contexts,
    rateLimits,
    rateLimitOverrides,
    statusHub,
    sanctionsLists,
    sanctionsScreening,
    schema,
    operations: new CompiledOperations(schema),
    accounts,
    dataRights,
    userRights,
    keepVerification,
    console: buildConsoleServices(db, config, accounts, audit),
    consoleWork: buildConsoleWork(db, sessions, vault, audit, { tenants, webhooks, retention, clients: accounts.clients, flows, upholdReview: (id, note, tenantId) => userRights.reviews.uphold(id, note, tenantId) }),
    bulkImports,
    webhookEvents: new WebhookEventFeed(db),
    metrics,
    readiness: new Readiness(readinessChecks({ db, embedded: database.keeper, jobs, engines: runsChecks ? checkProviders : null }), (check, o) =>
      o.code === 'ready' ? logger.info({ check }, 'readiness: ready') : logger.warn({ check, code: o.code, err: o.cause instanceof Error ? o.cause.message : o.cause }, 'readiness: not ready')),
    close: async () => {
      accounts.mail.close();
      sanctionsScreening.stop();
      await jobs.stop();
      await checkProviders.close(); // after the workers: a check job still running gets its answer
      await businessRegistries.close();
      await statusBus.close();
      await rateLimits?.close();
      await database.close();
    },
  };
}
