import path from 'node:path';
import { z } from 'zod';
import { LIST_URL_OFF, OFFICIAL_LIST_URLS } from './sanctions/official-sources';
import type { ListId } from '../entities/list-snapshot.document';
import { ABR_DEFAULT_URL } from './registries/abn-lookup.registry';
import { COMPANIES_HOUSE_DEFAULT_URL } from './registries/companies-house.registry';
import { GLEIF_DEFAULT_URL } from './registries/gleif.registry';
import { REGISTRY_URL_OFF } from './registries/business-registry';
import type { RegistriesConfig } from './registries/registries';
import { SEC_DEFAULT_URL } from './registries/sec-edgar.registry';
import { CHECK_ENGINE_CHOICES, type ChecksConfig } from './checks/checks-config';
import { CLIENT_ID_PREFIXES, VerifierSigningKey, VerifierSigningKeyError, type ClientIdPrefix, type VerifierSigningConfig } from './crypto/verifier-signing-key';

/** An empty variable counts as unset, as shells and .env files produce them. */
const blankAsUnset = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), schema);
const optionalUrl = blankAsUnset(z.url().optional());
const optionalString = blankAsUnset(z.string().optional());
/** A registry's base URL: unset is the official host, `off` switches it off. */
const registryUrl = (official: string) =>
  z.preprocess((v) => (v === undefined || (typeof v === 'string' && v.trim() === '') ? official : typeof v === 'string' && v.trim().toLowerCase() === REGISTRY_URL_OFF ? REGISTRY_URL_OFF : v), z.union([z.literal(REGISTRY_URL_OFF), z.url()]));

/** A list's download: unset is the official address, `off` (or an empty value) switches the download off. */
const listUrl = (list: ListId) =>
  z.preprocess((v) => (v === undefined ? OFFICIAL_LIST_URLS[list] : typeof v === 'string' && ['', LIST_URL_OFF].includes(v.trim().toLowerCase()) ? LIST_URL_OFF : v), z.union([z.literal(LIST_URL_OFF), z.url()]));

const ConfigSchema = z.object({
  /** HTTP port; 0 picks a free one (tests). */
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  /** Interface to listen on: 0.0.0.0 is every IPv4 interface; 127.0.0.1 keeps a developer's server off the network. */
  HOST: z.string().min(1).max(255).default('0.0.0.0'),
  /** Where the embedded PostgreSQL keeps its files when DATABASE_URL is unset. */
  DATA_DIR: z.string().min(1).default('./.data'),
  /** A real PostgreSQL server; unset means the embedded one. */
  DATABASE_URL: optionalUrl,
  /**
   * The owner's connection, for migrations and the job queue's own schema only; then DATABASE_URL
   * should name a login role in `idv_app`, which owns nothing and may only append to the audit log
   * (docs/operations.md, "Database roles"). Unset: DATABASE_URL does both, as before.
   */
  DATABASE_MIGRATION_URL: optionalUrl,
  /**
   * `run`: this process brings the schema up to date at start (under an advisory lock). `skip`: it only
   * checks, and refuses to start on a schema behind its build; the migrations then run once, in
   * `cli migrate` (a deployment's migration job; docs/deploy.md).
   */
  MIGRATIONS: z.enum(['run', 'skip']).default('run'),
  /** Redis shares rate-limit counts and subscription fan-out between instances; unset means in-process. */
  REDIS_URL: optionalUrl,
  /** The address end users and tenants see (hosted URLs, problem `type` URIs). Defaults to http://localhost:PORT. */
  PUBLIC_BASE_URL: optionalUrl,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Run the background job workers in this process (the embedded default); `npm run worker` runs them alone. */
  WORKER_ENABLED: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /**
   * Which job queues a process that runs jobs takes (docs/operations.md, "Workers"): `all`; `checks`, only the
   * sessions' checks (the check-worker tier, `dist/app/check-worker.js`); `jobs`, every queue but the checks
   * (no engines, so CHECK_WORKERS=0 is allowed).
   */
  WORKER_QUEUES: z.enum(['all', 'checks', 'jobs']).default('all'),
  /** Express `trust proxy` setting: hop count or comma-separated addresses/subnets. Unset trusts no proxy. */
  TRUST_PROXY: z.string().optional(),
  /** GET /metrics on the main port behind `Authorization: Bearer <token>` (docs/operations.md, "Metrics"); unset (and no METRICS_PORT): /metrics is 404. */
  METRICS_TOKEN: optionalString.pipe(z.string().min(16).optional()),
  /** GET /metrics alone on this port, with no token (for a scraper on a private network); wins over METRICS_TOKEN. */
  METRICS_PORT: blankAsUnset(z.coerce.number().int().min(0).max(65535).optional()),
  /** How often workers poll the job queue, in seconds (test-mode timing depends on it). */
  JOB_POLL_SECONDS: z.coerce.number().min(0.5).max(30).default(0.5),
  /** Bulk import (docs/api-behaviour.md, "Bulk import"): records per transaction (one multi-row INSERT of sessions each). */
  BULK_IMPORT_BATCH_SIZE: z.coerce.number().int().min(10).max(2000).default(500),
  /** Seconds a bulk-import job run holds its job: it works for a quarter of it, then queues its continuation; a run whose process died is taken back after it. */
  BULK_IMPORT_LEASE_SECONDS: z.coerce.number().int().min(4).max(3600).default(60),
  /** How often pg-boss reclaims jobs whose worker died (e.g. kill -9 mid-delivery), in seconds. */
  JOB_SUPERVISE_SECONDS: z.coerce.number().int().min(1).max(300).default(10),
  /** Base64 of 32 bytes: the AES-256-GCM key for webhook signing secrets at rest. Unset: one generated and kept in instance_settings. */
  WEBHOOK_SECRET_KEY: z.string().optional(),
  /** Base64 of 32 bytes: the master key that wraps each tenant's evidence-vault data key (docs/hosted-flow.md). Unset: one generated and kept in instance_settings. */
  VAULT_MASTER_KEY: z.string().optional(),
  /**
   * Where artifact ciphertext is kept (docs/operations.md, "Evidence vault"): `fs` files under VAULT_DIR
   * (the embedded default), `s3` an S3-compatible bucket (the default when VAULT_S3_BUCKET is set),
   * `postgres` the bytea column of before issue 30 (each body then held whole until its transaction).
   */
  VAULT_STORE: blankAsUnset(z.enum(['fs', 's3', 'postgres']).optional()),
  /** The filesystem store's directory; several instances need a shared volume. Default: DATA_DIR/vault. */
  VAULT_DIR: optionalString,
  /** The vault's ciphertext in an S3-compatible bucket (docs/operations.md, "Object storage"); credentials the SDK's usual way (AWS_ACCESS_KEY_ID, profiles, roles). */
  VAULT_S3_BUCKET: optionalString,
  /** A custom endpoint (MinIO, Ceph, the tests' local server); unset: AWS S3. */
  VAULT_S3_ENDPOINT: optionalUrl,
  /** The bucket's region; unset: AWS_REGION, or us-east-1 with a custom endpoint. */
  VAULT_S3_REGION: optionalString,
  /** Key prefix in the bucket: objects are `<prefix>/<artifact id>`. */
  VAULT_S3_PREFIX: optionalString,
  /** Path-style addressing (`endpoint/bucket/key`); unset: on exactly when VAULT_S3_ENDPOINT is set, as S3-compatible servers mostly need. */
  VAULT_S3_FORCE_PATH_STYLE: z.enum(['true', 'false']).optional(),
  /** Audit replication (docs/retention-and-audit.md): a directory (default DATA_DIR/audit-archive), or S3 with Object Lock when AUDIT_S3_BUCKET is set. */
  AUDIT_ARCHIVE_DIR: z.string().optional(),
  AUDIT_S3_BUCKET: z.string().optional(),
  AUDIT_S3_REGION: z.string().default('us-east-1'),
  AUDIT_S3_PREFIX: z.string().default('audit/'),
  AUDIT_S3_ENDPOINT: z.string().url().optional(),
  AUDIT_S3_RETENTION_YEARS: z.coerce.number().int().min(1).max(100).default(10),
  /** PKCS#8 PEM (or its base64) of the Ed25519 key that signs segment heads; unset: one generated and kept in instance_settings. */
  AUDIT_SIGNING_KEY: z.string().optional(),
  /** The mobile app's deep link (custom scheme or https universal link) the hosted page's T5 handoff opens (docs/hosted-flow.md). */
  MOBILE_APP_LINK: z.string().url().default('idverify://chip'),
  /** Multiplies every webhook retry delay and the 3-day disable window. TEST ONLY (e.g. 0.001); 1 in production. */
  WEBHOOK_RETRY_SCALE: z.coerce.number().positive().max(1).default(1),
  /** Multiplies the wait of every job retry (pg-boss retryDelay, docs/operations.md). TEST ONLY (e.g. 0.05); 1 in production. */
  JOB_RETRY_SCALE: z.coerce.number().positive().max(1).default(1),
  /** A delivery attempt that has no response within this many seconds fails (the contract says 10). */
  WEBHOOK_TIMEOUT_SECONDS: z.coerce.number().positive().max(10).default(10),
  /** Delivery attempts one process runs at the same time. */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(512).default(64),
  /** Lets webhooks reach loopback and private addresses (a developer's own machine, the tests); never set it where tenants are hosted (docs/security.md). */
  WEBHOOK_ALLOW_PRIVATE_TARGETS: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  /** PostgreSQL schema of the job queue. Only deployments that share a database but not a configuration (parallel test runs) set their own. */
  JOB_SCHEMA: z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/).default('pgboss'),
  /** Rate limiting of /v1 and /graphql (docs/rate-limits.md); `false` only for benchmarks and local experiments. */
  RATE_LIMIT_ENABLED: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /** Prefix of the rate-limit counters in Redis; instances that share counts must share it. */
  RATE_LIMIT_REDIS_PREFIX: z.string().regex(/^[A-Za-z0-9_:.-]{1,64}$/).default('rl'),
  /** The operator credential for admin GraphQL mutations (header `service-admin-key`), at least 32 characters. Unset: those mutations are refused. */
  ADMIN_API_KEY: z.string().min(32).optional(),
  /** WebSocket subscriptions (docs/subscriptions.md): ms between keep-alive pings; a peer that misses a pong is dropped. */
  SUBSCRIPTION_KEEPALIVE_MS: z.coerce.number().int().min(1000).max(120_000).default(12_000),
  /** Active subscriptions one WebSocket connection may hold. */
  SUBSCRIPTION_MAX_PER_CONNECTION: z.coerce.number().int().min(1).max(1000).default(20),
  /** Open WebSocket connections one credential (API key or client_secret) may hold on one instance. */
  SUBSCRIPTION_MAX_CONNECTIONS_PER_KEY: z.coerce.number().int().min(1).max(1_000_000).default(100),
  /** Events queued for one connection before it counts as a slow consumer and is closed (1013). */
  SUBSCRIPTION_QUEUE_LIMIT: z.coerce.number().int().min(1).max(100_000).default(256),
  /** How often open connections re-check their API key, in ms: a revoked key stops receiving events within this. */
  SUBSCRIPTION_AUTH_RECHECK_MS: z.coerce.number().int().min(100).max(60_000).default(1000),
  /** Download address of each sanctions list (docs/sanctions.md); unset: the official one; `off`: only the CLI loads that list. */
  SANCTIONS_URL_OFAC: listUrl('ofac'),
  SANCTIONS_URL_EU: listUrl('eu'),
  SANCTIONS_URL_UK: listUrl('uk'),
  SANCTIONS_URL_UN: listUrl('un'),
  SANCTIONS_URL_AU: listUrl('au'),
  /** pg-boss cron (UTC) of the daily sanctions refresh; a list missing or older than 24 h is also fetched at start. */
  SANCTIONS_REFRESH_CRON: z.string().min(9).default('17 4 * * *'),
  /** First wait before a failed start-up or catch-up download is tried again; it doubles on each try (up to an hour). */
  SANCTIONS_RETRY_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  /** A list download that takes longer fails (the previous version stays in force). */
  SANCTIONS_FETCH_TIMEOUT_SECONDS: z.coerce.number().positive().max(3600).default(120),
  /** Largest accepted list download, in MiB (the full OFAC advanced XML is about 120 MiB). */
  SANCTIONS_MAX_DOWNLOAD_MB: z.coerce.number().int().min(1).max(4096).default(512),
  /** How often each instance checks whether another list version was switched in, in seconds. */
  SANCTIONS_POLL_SECONDS: z.coerce.number().min(0.2).max(300).default(5),
  /** Serve the copyable browser example and the graphql-ws browser client at /examples/. */
  EXAMPLES_ENABLED: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /**
   * Worker threads that run the offline check engines (OCR, face models); unset: one per core. Each holds ~300 MB of models.
   * 0: this process runs no check engines (an API instance beside `npm run worker` processes); allowed only with WORKER_ENABLED=false.
   */
  CHECK_WORKERS: z.coerce.number().int().min(0).max(64).optional(),
  /** Check tasks allowed to wait for a worker before new ones are refused (the job queue retries them): bounds memory. */
  CHECK_QUEUE_LIMIT: z.coerce.number().int().min(1).max(10_000).default(64),
  /** A check task (one engine call) that takes longer is answered `error`. */
  CHECK_TIMEOUT_SECONDS: z.coerce.number().positive().max(600).default(60),
  /**
   * Engine of each live check: `embedded` runs offline in the worker pool, `aws` calls the managed service,
   * `off` switches the check off on purpose (it answers `error` with that reason, so a person decides) (docs/checks.md).
   */
  CHECK_DOCUMENT_ENGINE: z.enum(CHECK_ENGINE_CHOICES).default('embedded'),
  CHECK_FACE_MATCH_ENGINE: z.enum(CHECK_ENGINE_CHOICES).default('embedded'),
  CHECK_LIVENESS_ENGINE: z.enum(CHECK_ENGINE_CHOICES).default('embedded'),
  CHECK_ANTI_SPOOF_ENGINE: z.enum(CHECK_ENGINE_CHOICES).default('embedded'),
  /** AWS region of the managed adapters; credentials come from the SDK's usual chain (AWS_ACCESS_KEY_ID, profiles, roles). */
  AWS_REGION: z.string().min(1).optional(),
  /** Overrides the AWS endpoint (a VPC endpoint, or the local server the adapter tests serve). */
  CHECK_AWS_ENDPOINT: optionalUrl,
  /** A managed call without an answer within this many seconds makes the check `error`. */
  CHECK_AWS_TIMEOUT_SECONDS: z.coerce.number().positive().max(120).default(10),
  /** The social service's data-rights contract (docs/data-rights.md, "The social upstream"); unset: the social entries of an export are empty. */
  SOCIAL_UPSTREAM_URL: optionalUrl,
  /** Bearer token sent to SOCIAL_UPSTREAM_URL, if it asks for one. */
  SOCIAL_UPSTREAM_TOKEN: z.string().min(1).optional(),
  /** A call to the social upstream that has not started answering within this many seconds fails (the job retries). */
  SOCIAL_UPSTREAM_TIMEOUT_SECONDS: z.coerce.number().positive().max(300).default(30),
  /** The gateway proxy of /v1/social, /v1/profiles and /v1/network (docs/decisions.md D18): an upstream silent this long is a 504. */
  SOCIAL_PROXY_TIMEOUT_SECONDS: z.coerce.number().positive().max(120).default(10),
  /** Which instance this is (docs/decisions.md D19), shown in /healthz. */
  ENVIRONMENT: z.enum(['production', 'staging', 'development']).default('development'),
  /** The staging server listed in /openapi.yaml; default: PUBLIC_BASE_URL with its host prefixed `staging.`. */
  STAGING_BASE_URL: optionalUrl,
  /** Where finished export bundles wait for their download (7 days); several instances need a shared volume. Default: DATA_DIR/exports. */
  EXPORT_DIR: z.string().min(1).optional(),
  /** Mail to end users (docs/accounts-and-oidc.md): an smtp:// or smtps:// URL; unset keeps messages in the outbox (`npm run cli -- mail list`). */
  SMTP_URL: blankAsUnset(z.string().regex(/^smtps?:\/\//).optional()),
  MAIL_FROM: z.string().min(3).default('Identity Verification <no-reply@localhost>'),
  /** pg-boss cron (UTC) of the sweep that drops mail kept longer than 30 days. */
  MAIL_SWEEP_CRON: z.string().min(9).default('17 3 * * *'),
  /** Base64 of 32 bytes: seals users' personal data and the OIDC signing keys. Unset: one generated and kept in instance_settings. */
  USER_DATA_KEY: z.string().optional(),
  /** Lifetime of access tokens (JWT for /v1/me, opaque for userinfo). Short values are for tests of expiry. */
  OIDC_ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(3600),
  /** How long an emailed sign-up code is valid (10 minutes); short values are for tests of expiry. */
  EMAIL_CODE_TTL_SECONDS: z.coerce.number().int().min(1).max(600).default(600),
  /** Export and erasure need a sign-in within this many seconds (D20: 10 minutes); short values are for tests of a stale sign-in. */
  REAUTHENTICATION_WINDOW_SECONDS: z.coerce.number().int().min(1).max(600).default(600),
  /**
   * The account portal's client secret, when its backend runs apart from the server and redeems its codes
   * at /v1/oidc/token (docs/accounts-and-oidc.md, "The account portal's tokens"). Unset: derived, never shown.
   */
  ACCOUNT_PORTAL_CLIENT_SECRET: z.string().min(32).optional(),
  /** The console's sign-in (docs/console.md, "Sessions"): at most this long from sign-in (12 h). */
  CONSOLE_SESSION_TTL_SECONDS: z.coerce.number().int().min(1).max(7 * 86_400).default(12 * 3600),
  /** A console sign-in without a request for this long ends (30 min); short values are for tests. */
  CONSOLE_IDLE_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(86_400).default(30 * 60),
  /** An invitation to a console works for this long (7 days); short values are for tests of expiry. */
  CONSOLE_INVITATION_TTL_SECONDS: z.coerce.number().int().min(1).max(30 * 86_400).default(7 * 86_400),
  /** T4 business registries (docs/checks.md, "Business registries"): base URLs default to the official hosts; `off` switches one off. */
  REGISTRY_GLEIF_URL: registryUrl(GLEIF_DEFAULT_URL),
  REGISTRY_SEC_URL: registryUrl(SEC_DEFAULT_URL),
  REGISTRY_COMPANIES_HOUSE_URL: registryUrl(COMPANIES_HOUSE_DEFAULT_URL),
  REGISTRY_ABR_URL: registryUrl(ABR_DEFAULT_URL),
  /** Sent as `User-Agent` to SEC EDGAR, which requires a declared one ("Company Name admin@company.example"); unset: SEC checks are switched off. */
  SEC_USER_AGENT: optionalString,
  /** Companies House API key (HTTP Basic user name, empty password); unset: Companies House checks are switched off. */
  COMPANIES_HOUSE_API_KEY: optionalString,
  /** ABN Lookup web-services GUID (query parameter `guid`); unset: ABN checks are switched off. */
  ABR_GUID: optionalString,
  /** A registry call without a whole answer within this many seconds makes its check `error`. */
  REGISTRY_TIMEOUT_SECONDS: z.coerce.number().positive().max(60).default(5),
  /**
   * The verifier key that signs OpenID4VP requests (docs/digital-ids.md, "Signed requests"): PEM of an EC
   * private key (P-256/384/521), or its base64. Unset (with DIGITAL_ID_VERIFIER_CERTIFICATE): requests are unsigned.
   */
  DIGITAL_ID_VERIFIER_KEY: optionalString,
  /** The verifier key's certificate chain, leaf first, PEM or its base64; set with DIGITAL_ID_VERIFIER_KEY. */
  DIGITAL_ID_VERIFIER_CERTIFICATE: optionalString,
  /** The client identifier prefix the certificate binds (OpenID4VP 1.0 5.9.3): `x509_san_dns` (PUBLIC_BASE_URL's host among its DNS names) or `x509_hash`. */
  DIGITAL_ID_VERIFIER_CLIENT_ID_PREFIX: blankAsUnset(z.enum(CLIENT_ID_PREFIXES as [ClientIdPrefix, ...ClientIdPrefix[]]).default('x509_san_dns')),
});

/** Every environment variable the service reads itself (the deployment files are checked against it: test/deploy). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(ConfigSchema.shape);

/** WORKER_QUEUES: the split of a worker's queues between the jobs tier and the check-worker tier. */
export type WorkerQueues = 'all' | 'checks' | 'jobs';

export type Config = {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  databaseMigrationUrl: string | undefined;
  /** Whether this process runs the migrations at start or only checks that they ran (MIGRATIONS). */
  migrations: 'run' | 'skip';
  redisUrl: string | undefined;
  publicBaseUrl: string;
  logLevel: z.infer<typeof ConfigSchema>['LOG_LEVEL'];
  workerEnabled: boolean;
  /** The queues this process works when workerEnabled (WORKER_QUEUES). */
  workerQueues: WorkerQueues;
  trustProxy: string | undefined;
  /** Where GET /metrics is served (docs/operations.md, "Metrics"). */
  metrics: { token: string | undefined; port: number | undefined };
  jobPollSeconds: number;
  jobSuperviseSeconds: number;
  jobRetryScale: number;
  bulkImport: { batchSize: number; leaseSeconds: number };
  webhooks: { secretKey: string | undefined; retryScale: number; timeoutMs: number; concurrency: number; allowPrivateTargets: boolean };
  jobSchema: string;
  vault: {
    masterKey: string | undefined;
    mobileAppLink: string;
    /** Which blob store keeps artifact ciphertext (src/vault/create-blob-store.ts). */
    store: 'fs' | 's3' | 'postgres';
    dir: string;
    /** The S3 back end (src/vault/s3-blob-store.ts); null unless VAULT_S3_BUCKET is set. */
    s3: S3BlobStoreConfig | null;
  };
  audit: { archiveDir: string; s3: { bucket: string; region: string; prefix: string; endpoint?: string; retentionYears: number } | null; signingKey: string | undefined };
  rateLimit: { enabled: boolean; redisPrefix: string };
  adminApiKey: string | undefined;
  subscriptions: { keepAliveMs: number; maxPerConnection: number; maxConnectionsPerKey: number; queueLimit: number; authRecheckMs: number };
  examplesEnabled: boolean;
  sanctions: { urls: Partial<Record<'ofac' | 'eu' | 'uk' | 'un' | 'au', string>>; refreshCron: string; retrySeconds: number; fetchTimeoutMs: number; maxDownloadBytes: number; pollMs: number };
  checks: ChecksConfig;
  /** D24: the key and certificate that sign OpenID4VP requests; null: requests are unsigned. */
  digitalId: { verifierSigning: VerifierSigningConfig | null };
  /** The T4 business registries (docs/checks.md, "Business registries"). */
  registries: RegistriesConfig;
  dataRights: { socialUpstreamUrl: string | undefined; socialUpstreamToken: string | undefined; socialTimeoutMs: number; proxyTimeoutMs: number; exportDir: string };
  environment: 'production' | 'staging' | 'development';
  stagingBaseUrl: string;
  accounts: {
    smtpUrl: string | undefined;
    mailFrom: string;
    mailSweepCron: string;
    userDataKey: string | undefined;
    accessTokenTtlSeconds: number;
    codeTtlSeconds: number;
    reauthenticationWindowSeconds: number;
    portalClientSecret: string | undefined;
  };
  /** The console of tenant staff (docs/console.md). */
  console: { sessionTtlSeconds: number; idleTimeoutSeconds: number; invitationTtlSeconds: number };
};

/** The vault's S3 bucket (src/vault/s3-blob-store.ts), from VAULT_S3_*; credentials come from the SDK's usual chain. */
export type S3BlobStoreConfig = {
  bucket: string;
  /** A custom endpoint: MinIO, Ceph, another S3-compatible service, or the tests' local server. */
  endpoint: string | undefined;
  /** Objects are `<prefix>/<artifact id>`; unset: `<artifact id>` at the bucket's root. */
  prefix: string | undefined;
  /** `endpoint/bucket/key` instead of `bucket.endpoint/key`. */
  forcePathStyle: boolean;
  /** Unset: the SDK's chain (AWS_REGION, the profile); with a custom endpoint, us-east-1, which S3-compatible servers accept. */
  region: string | undefined;
};

export class ConfigError extends Error {}

/** Both or neither of the key and its certificate; when both, they are checked now rather than at the first wallet. */
function digitalIdVerifierSigning(c: z.infer<typeof ConfigSchema>, publicBaseUrl: string): VerifierSigningConfig | null {
  const key = c.DIGITAL_ID_VERIFIER_KEY;
  const certificate = c.DIGITAL_ID_VERIFIER_CERTIFICATE;
  if (!key && !certificate) return null;
  if (!key || !certificate) throw new ConfigError('Invalid configuration: DIGITAL_ID_VERIFIER_KEY and DIGITAL_ID_VERIFIER_CERTIFICATE: set both or neither');
  const config = { key, certificate, clientIdPrefix: c.DIGITAL_ID_VERIFIER_CLIENT_ID_PREFIX };
  try {
    VerifierSigningKey.load(config, publicBaseUrl);
  } catch (err) {
    if (err instanceof VerifierSigningKeyError) throw new ConfigError(`Invalid configuration: ${err.message}`);
    throw err;
  }
  return config;
}

/** Reads and validates the environment once; a bad value fails fast naming the key. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`Invalid configuration: ${problems}`);
  }
  const c = parsed.data;
  // A process that runs jobs runs the check jobs, and they need engines to run on (docs/operations.md, "Workers").
  if (c.CHECK_WORKERS === 0 && c.WORKER_ENABLED && c.WORKER_QUEUES !== 'jobs') {
    throw new ConfigError('Invalid configuration: CHECK_WORKERS: 0 (no check engines) is only allowed where no check jobs run: set WORKER_ENABLED=false or WORKER_QUEUES=jobs, and run the checks in worker processes');
  }
  if (c.VAULT_STORE === 's3' && !c.VAULT_S3_BUCKET) throw new ConfigError('Invalid configuration: VAULT_S3_BUCKET: required when VAULT_STORE is s3');
  const publicBaseUrl = (c.PUBLIC_BASE_URL ?? `http://localhost:${c.PORT}`).replace(/\/+$/, '');
  const stagingBaseUrl = (c.STAGING_BASE_URL ?? stagingUrlOf(publicBaseUrl)).replace(/\/+$/, '');
  // A production instance whose staging URL is its own would send a tenant "switching to staging" to production, live keys and all.
  if (c.ENVIRONMENT === 'production' && stagingEqualsProduction(publicBaseUrl, stagingBaseUrl)) {
    throw new ConfigError(`Invalid configuration: STAGING_BASE_URL: ${STAGING_IS_PRODUCTION} (${new URL(publicBaseUrl).origin}); set STAGING_BASE_URL to the staging server's own URL`);
  }
  const verifierSigning = digitalIdVerifierSigning(c, publicBaseUrl);
  return {
    digitalId: { verifierSigning },
    port: c.PORT,
    host: c.HOST,
    dataDir: path.resolve(c.DATA_DIR),
    databaseUrl: c.DATABASE_URL,
    databaseMigrationUrl: c.DATABASE_MIGRATION_URL,
    migrations: c.MIGRATIONS,
    redisUrl: c.REDIS_URL,
    publicBaseUrl,
    logLevel: c.LOG_LEVEL,
    workerEnabled: c.WORKER_ENABLED,
    workerQueues: c.WORKER_QUEUES,
    trustProxy: c.TRUST_PROXY,
    metrics: { token: c.METRICS_TOKEN, port: c.METRICS_PORT },
    jobPollSeconds: c.JOB_POLL_SECONDS,
    jobSuperviseSeconds: c.JOB_SUPERVISE_SECONDS,
    jobRetryScale: c.JOB_RETRY_SCALE,
    bulkImport: { batchSize: c.BULK_IMPORT_BATCH_SIZE, leaseSeconds: c.BULK_IMPORT_LEASE_SECONDS },
    webhooks: {
      secretKey: c.WEBHOOK_SECRET_KEY,
      retryScale: c.WEBHOOK_RETRY_SCALE,
      timeoutMs: Math.round(c.WEBHOOK_TIMEOUT_SECONDS * 1000),
      concurrency: c.WEBHOOK_CONCURRENCY,
      allowPrivateTargets: c.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    },
    jobSchema: c.JOB_SCHEMA,
    audit: {
      archiveDir: path.resolve(c.AUDIT_ARCHIVE_DIR ?? path.join(c.DATA_DIR, 'audit-archive')),
      s3: c.AUDIT_S3_BUCKET ? { bucket: c.AUDIT_S3_BUCKET, region: c.AUDIT_S3_REGION, prefix: c.AUDIT_S3_PREFIX, endpoint: c.AUDIT_S3_ENDPOINT, retentionYears: c.AUDIT_S3_RETENTION_YEARS } : null,
      signingKey: c.AUDIT_SIGNING_KEY,
    },
    vault: {
      masterKey: c.VAULT_MASTER_KEY,
      mobileAppLink: c.MOBILE_APP_LINK,
      store: c.VAULT_STORE ?? (c.VAULT_S3_BUCKET ? 's3' : 'fs'),
      dir: path.resolve(c.VAULT_DIR ?? path.join(c.DATA_DIR, 'vault')),
      s3: c.VAULT_S3_BUCKET
        ? {
            bucket: c.VAULT_S3_BUCKET,
            endpoint: c.VAULT_S3_ENDPOINT,
            prefix: c.VAULT_S3_PREFIX,
            forcePathStyle: c.VAULT_S3_FORCE_PATH_STYLE ? c.VAULT_S3_FORCE_PATH_STYLE === 'true' : c.VAULT_S3_ENDPOINT !== undefined,
            region: c.VAULT_S3_REGION ?? c.AWS_REGION,
          }
        : null,
    },
    rateLimit: { enabled: c.RATE_LIMIT_ENABLED, redisPrefix: c.RATE_LIMIT_REDIS_PREFIX },
    adminApiKey: c.ADMIN_API_KEY,
    subscriptions: {
      keepAliveMs: c.SUBSCRIPTION_KEEPALIVE_MS,
      maxPerConnection: c.SUBSCRIPTION_MAX_PER_CONNECTION,
      maxConnectionsPerKey: c.SUBSCRIPTION_MAX_CONNECTIONS_PER_KEY,
      queueLimit: c.SUBSCRIPTION_QUEUE_LIMIT,
      authRecheckMs: c.SUBSCRIPTION_AUTH_RECHECK_MS,
    },
    examplesEnabled: c.EXAMPLES_ENABLED,
    sanctions: {
      urls: Object.fromEntries(
        Object.entries({ ofac: c.SANCTIONS_URL_OFAC, eu: c.SANCTIONS_URL_EU, uk: c.SANCTIONS_URL_UK, un: c.SANCTIONS_URL_UN, au: c.SANCTIONS_URL_AU }).filter(([, u]) => u !== LIST_URL_OFF),
      ),
      retrySeconds: c.SANCTIONS_RETRY_SECONDS,
      refreshCron: c.SANCTIONS_REFRESH_CRON,
      fetchTimeoutMs: Math.round(c.SANCTIONS_FETCH_TIMEOUT_SECONDS * 1000),
      maxDownloadBytes: c.SANCTIONS_MAX_DOWNLOAD_MB * 1024 * 1024,
      pollMs: Math.round(c.SANCTIONS_POLL_SECONDS * 1000),
    },
    environment: c.ENVIRONMENT,
    stagingBaseUrl,
    dataRights: {
      socialUpstreamUrl: c.SOCIAL_UPSTREAM_URL?.replace(/\/+$/, ''),
      socialUpstreamToken: c.SOCIAL_UPSTREAM_TOKEN,
      socialTimeoutMs: Math.round(c.SOCIAL_UPSTREAM_TIMEOUT_SECONDS * 1000),
      proxyTimeoutMs: Math.round(c.SOCIAL_PROXY_TIMEOUT_SECONDS * 1000),
      exportDir: path.resolve(c.EXPORT_DIR ?? path.join(c.DATA_DIR, 'exports')),
    },
    checks: {
      workers: c.CHECK_WORKERS,
      queueLimit: c.CHECK_QUEUE_LIMIT,
      timeoutMs: Math.round(c.CHECK_TIMEOUT_SECONDS * 1000),
      engines: {
        document: c.CHECK_DOCUMENT_ENGINE,
        faceMatch: c.CHECK_FACE_MATCH_ENGINE,
        liveness: c.CHECK_LIVENESS_ENGINE,
        antiSpoof: c.CHECK_ANTI_SPOOF_ENGINE,
      },
      aws: { region: c.AWS_REGION, endpoint: c.CHECK_AWS_ENDPOINT, timeoutMs: Math.round(c.CHECK_AWS_TIMEOUT_SECONDS * 1000) },
    },
    registries: {
      gleifUrl: c.REGISTRY_GLEIF_URL,
      secUrl: c.REGISTRY_SEC_URL,
      secUserAgent: c.SEC_USER_AGENT,
      companiesHouseUrl: c.REGISTRY_COMPANIES_HOUSE_URL,
      companiesHouseApiKey: c.COMPANIES_HOUSE_API_KEY,
      abrUrl: c.REGISTRY_ABR_URL,
      abrGuid: c.ABR_GUID,
      timeoutMs: Math.round(c.REGISTRY_TIMEOUT_SECONDS * 1000),
      redisUrl: c.REDIS_URL,
      redisPrefix: c.RATE_LIMIT_REDIS_PREFIX,
    },
    accounts: {
      smtpUrl: c.SMTP_URL,
      mailFrom: c.MAIL_FROM,
      mailSweepCron: c.MAIL_SWEEP_CRON,
      userDataKey: c.USER_DATA_KEY,
      accessTokenTtlSeconds: c.OIDC_ACCESS_TOKEN_TTL_SECONDS,
      codeTtlSeconds: c.EMAIL_CODE_TTL_SECONDS,
      reauthenticationWindowSeconds: c.REAUTHENTICATION_WINDOW_SECONDS,
      portalClientSecret: c.ACCOUNT_PORTAL_CLIENT_SECRET,
    },
    console: { sessionTtlSeconds: c.CONSOLE_SESSION_TTL_SECONDS, idleTimeoutSeconds: c.CONSOLE_IDLE_TIMEOUT_SECONDS, invitationTtlSeconds: c.CONSOLE_INVITATION_TTL_SECONDS },
  };
}

/**
 * What start-up says when staging's URL is production's: refused on a production instance, logged as a
 * warning on a development one. A host that is an IP address cannot take the `staging.` prefix (the URL
 * parser keeps the address as it is), so with no STAGING_BASE_URL the default is production's own URL.
 */
export const STAGING_IS_PRODUCTION = "the staging URL is the production URL: a PUBLIC_BASE_URL whose host is an IP address cannot take the 'staging.' prefix";

/** Do the two base URLs name the same server (scheme, host, port and path)? */
export function stagingEqualsProduction(publicBaseUrl: string, stagingBaseUrl: string): boolean {
  const norm = (u: string) => new URL(u).toString().replace(/\/+$/, '');
  return norm(publicBaseUrl) === norm(stagingBaseUrl);
}

/** D19: staging is production's URL with its host prefixed `staging.` unless STAGING_BASE_URL says otherwise. */
function stagingUrlOf(publicBaseUrl: string): string {
  const url = new URL(publicBaseUrl);
  url.hostname = `staging.${url.hostname}`;
  return url.toString();
}
