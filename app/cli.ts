import '../src/compile-cache';
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import path from 'node:path';
import { loadConfig, type Config } from '../src/config';
import { openDatabase, type Database } from '../src/db/database';
import { DomainError } from '../src/errors';
import { hasUnstorableCharacters } from '../src/validation/postgres-text';
import { TenantService } from '../src/tenants/tenant.service';
import type { RateLimitOverrides } from '../src/rate-limit/rate-limit-overrides';
import type { PostgresCscaTrustStore } from '../src/chip/postgres-csca.trust-store';
import type { JobQueue } from '../src/jobs/job-queue';
import type { ListFormat, ListId } from '../src/sanctions';
import type { RefreshSanctionsData } from '../src/sanctions/refresh-sanctions.job';
import { ACCOUNT_COMMANDS, ACCOUNT_OPTIONS, ACCOUNT_USAGE, accountsCommand, registerTenantClients } from './cli/accounts.cli';
import { MEMBER_COMMANDS, MEMBER_USAGE, membersCommand } from './cli/members.cli';
import { TRUST_COMMANDS, TRUST_USAGE, trustCommand } from './cli/trust.cli';
import { boundedLines } from './cli/bounded-lines';
import { checkListenOptions, ListenUsageError, webhooksListen, WEBHOOKS_LISTEN_USAGE } from './cli/webhooks-listen.cli';

// Each command's own modules (sanctions, chip, vault, audit, jobs, ...) are imported in its case below, not
// here: loading every command's modules cost each run, `tenant create` included, about 40 % more CPU
// (docs/benchmarks.md, "CLI start-up").

const USAGE = `Usage: npm run --silent cli -- <command> [options]

  tenant create --name <name> [--jwks-uri <https url>] [--json]
                                              a tenant, its default flow, one test and one live key,
                                              and its test and live OIDC clients (secrets shown once;
                                              with --jwks-uri they use private_key_jwt instead)
  tenant list [--json]
  migrate [--json]                            bring the schema (and the job queue's) up to date, once;
                                              for deployments whose processes start with MIGRATIONS=skip
  key create --tenant <id> --mode test|live [--scopes a,b] [--json]
  key revoke --key <key id> [--json]
  csca import --masterlist <file.ml> --anchor <root.cer> [--json]
                                              trust the CSCAs of an ICAO master list, after verifying
                                              its signature and signer chain against the anchor
  csca import --trust-certificate <csca.der> [--json]
                                              trust ONE certificate without a master list: for test
                                              vectors and development only (prints a warning)
  csca list [--country DE] [--json]
  limits set --tenant <id> --bucket <name> --limit <n> [--json]
                                              a tenant's limit for one bucket (per sliding 60 s);
                                              live on every instance within a second
  limits clear --tenant <id> --bucket <name> [--json]
  limits list [--tenant <id>] [--json]
  sanctions load --list ofac|eu|uk|un|au --file <path> [--format <format>] [--json]
                                              load an official list file as a new version and switch
                                              it in atomically (formats: ofac_xml, ofac_csv,
                                              ofac_advanced_xml, eu_fsf_xml, uk_xml, un_xml, dfat_xlsx;
                                              default: detected); a malformed file changes nothing
  sanctions load --list ofac --file sdn.csv [--alt alt.csv] [--add add.csv] [--comments sdn_comments.csv]
                                              the OFAC legacy CSV set
  sanctions list [--json]                     the version in force of each list
  sanctions refresh [--list <id>] [--json]    enqueue the refresh job now; it downloads from this
                                              environment's SANCTIONS_URL_* (see docs/sanctions.md)
  flow update --tenant <id> [--flow default] [--display-name <text>] [--logo-url <https url>]
              [--primary-color #rrggbb] [--locale de-DE] [--allowed-origins https://a.example,https://b.example]
              [--digital-id on|off]
                                              a flow's branding and the origins that may embed it
                                              (--allowed-origins "" clears them); --digital-id: whether
                                              the page offers "Use a digital ID" (default on, D24)
  vault purge-expired [--json]                delete the bytes of every artifact past its retain_until
  vault migrate --to fs|s3 [--json]           move artifacts stored in the database (bytea) to the blob
                                              store VAULT_STORE names; resumable (docs/operations.md)
  dsr purge-due [--as-of <ISO date>] [--json] queue the hard purge of deleted users due by that date
                                              (default now), run as of it (docs/data-rights.md)
  tenant set-threshold --tenant <id> --threshold <0.3..1> [--json]
                                              a tenant's minimum sanctions hit score (default 0.70)
  tenant set-regulated --tenant <id> [--off] [--json]
                                              mark a tenant regulated (it may extend one session's
                                              ID-document retention up to 10 years), or unmark it
  audit verify <dir|segment.ndjson>... [--json]
                                              check audit segments offline, without the database:
                                              every hash, link and signature; names the first failure
  audit replicate [--json]                    write every finished day's audit segments to the archive now
${WEBHOOKS_LISTEN_USAGE}
  batch                                       one command per line of standard input, each a JSON array
                                              of its arguments; one JSON line out per command:
                                              {"exit_code":0,"result":...}, {"exit_code":1,"error":...}
                                              or {"exit_code":2,"usage":...}; exits 1 if any failed
${ACCOUNT_USAGE}
${MEMBER_USAGE}
${TRUST_USAGE}

With the server running on the embedded database, the CLI talks to it through the socket in
DATA_DIR; otherwise it opens DATA_DIR itself. With DATABASE_URL it uses that server.`;

type Args = { values: Record<string, string | boolean | undefined>; positionals: string[] };

class UsageError extends Error {}

function required(args: Args, name: string): string {
  const v = args.values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

async function run(argv: string[]): Promise<unknown> {
  const args: Args = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      tenant: { type: 'string' },
      mode: { type: 'string' },
      scopes: { type: 'string' },
      key: { type: 'string' },
      json: { type: 'boolean' },
      masterlist: { type: 'string' },
      anchor: { type: 'string' },
      'trust-certificate': { type: 'string' },
      country: { type: 'string' },
      bucket: { type: 'string' },
      limit: { type: 'string' },
      list: { type: 'string' },
      file: { type: 'string' },
      format: { type: 'string' },
      alt: { type: 'string' },
      add: { type: 'string' },
      comments: { type: 'string' },
      threshold: { type: 'string' },
      flow: { type: 'string' },
      'display-name': { type: 'string' },
      'logo-url': { type: 'string' },
      'primary-color': { type: 'string' },
      locale: { type: 'string' },
      'allowed-origins': { type: 'string' },
      'digital-id': { type: 'string' },
      off: { type: 'boolean' },
      'as-of': { type: 'string' },
      help: { type: 'boolean' },
      'jwks-uri': { type: 'string' },
      role: { type: 'string' },
      environment: { type: 'string' },
      kind: { type: 'string' },
      pem: { type: 'string' },
      vical: { type: 'string' },
      fingerprint: { type: 'string' },
      'api-key': { type: 'string' },
      'forward-to': { type: 'string' },
      'base-url': { type: 'string' },
      invitation: { type: 'string' },
      ...ACCOUNT_OPTIONS,
    },
  });
  const [group, action] = args.positionals;
  if (args.values.help || !group) throw new UsageError('');
  const command = `${group} ${action ?? ''}`.trim();
  const known = ['migrate', 'tenant create', 'tenant list', 'key create', 'key revoke', 'csca import', 'csca list', 'limits set', 'limits clear', 'limits list', 'sanctions load', 'sanctions list', 'sanctions refresh', 'tenant set-threshold', 'flow update', 'vault purge-expired', 'vault migrate', 'tenant set-regulated', 'audit verify', 'audit replicate', 'dsr purge-due', 'webhooks listen', ...ACCOUNT_COMMANDS, ...MEMBER_COMMANDS, ...TRUST_COMMANDS];
  if (!known.includes(command)) throw new UsageError(`Unknown command: ${command}`);
  // Offline by design: it reads segment files and the public key in them, never the database.
  if (command === 'audit verify') return (await import('./cli/audit.cli.js')).auditVerifyCommand(args.positionals.slice(2));
  // A client of a running service (local or remote), never of the database; it runs until stopped.
  if (command === 'webhooks listen') {
    const v = args.values as Record<string, string | undefined>;
    let options;
    try {
      options = checkListenOptions({ apiKey: v['api-key'], forwardTo: v['forward-to'], baseUrl: v['base-url'] });
    } catch (err) {
      if (err instanceof ListenUsageError) throw new DomainError('invalid_request', err.message);
      throw err;
    }
    process.exit(await webhooksListen(options));
  }

  const config = loadConfig();
  if (command === 'migrate') return migrateCommand(config);
  const database = await openDatabase(config, 2);
  try {
    const tenants = new TenantService(database.dataSource);
    switch (command) {
      case 'tenant create': {
        const t = await tenants.create(required(args, 'name'));
        const jwksUri = typeof args.values['jwks-uri'] === 'string' ? args.values['jwks-uri'] : undefined;
        const clients = await registerTenantClients(database.dataSource, config, t.tenantId, jwksUri);
        return { tenant_id: t.tenantId, test_api_key: t.testKey.key, live_api_key: t.liveKey.key, ...clients };
      }
      case 'tenant list':
        return {
          tenants: (await tenants.list()).map((t) => ({ tenant_id: t.id, name: t.name, created_at: t.createdAt.toISOString(), active_keys: t.activeKeys })),
        };
      case 'key create': {
        const mode = required(args, 'mode');
        if (mode !== 'test' && mode !== 'live') throw new UsageError('--mode is test or live');
        const scopes = typeof args.values.scopes === 'string' ? args.values.scopes.split(',').map((s) => s.trim()).filter(Boolean) : [];
        const k = await tenants.createKey(required(args, 'tenant'), mode === 'live', scopes);
        return { key_id: k.id, api_key: k.key, livemode: k.livemode, scopes: k.scopes };
      }
      case 'csca import':
      case 'csca list': {
        const store = new (await import('../src/chip/postgres-csca.trust-store.js')).PostgresCscaTrustStore(database.dataSource);
        return command === 'csca import' ? await cscaImport(store, args) : await cscaList(store, args);
      }
      case 'limits set':
      case 'limits clear':
      case 'limits list':
        return await limitsCommand(command, new (await import('../src/rate-limit/rate-limit-overrides.js')).RateLimitOverrides(database.dataSource), args);
      case 'flow update': {
        const [{ FlowService }, { AuditLogService }] = await Promise.all([import('../src/flows/flow.service.js'), import('../src/audit/audit-log.service.js')]);
        const v = args.values as Record<string, string | undefined>;
        const origins = v['allowed-origins'];
        const digitalId = v['digital-id'];
        if (digitalId !== undefined && digitalId !== 'on' && digitalId !== 'off') throw new UsageError('--digital-id is on or off');
        const flow = await new FlowService(database.dataSource, new AuditLogService(database.dataSource)).update(required(args, 'tenant'), v.flow ?? 'default', {
          displayName: v['display-name'],
          logoUrl: v['logo-url'],
          primaryColor: v['primary-color'],
          locale: v.locale,
          allowedOrigins: origins === undefined ? undefined : origins.split(',').map((o) => o.trim()).filter(Boolean),
          digitalIdEnabled: digitalId === undefined ? undefined : digitalId === 'on',
        }, { livemode: true, who: { by: 'operator' } });
        return { flow_id: flow.id, display_name: flow.displayName, logo_url: flow.logoUrl, primary_color: flow.primaryColor, locale: flow.locale, allowed_origins: flow.allowedOrigins, digital_id: flow.digitalIdEnabled };
      }
      case 'mail sweep': {
        // Queued, not run here: the sweep is the servers' job, and any instance's worker takes it.
        const { MAIL_SWEEP_JOB } = await import('../src/mail/mail-outbox.js');
        const jobs = await startJobQueue(config, database);
        try {
          await jobs.send(MAIL_SWEEP_JOB, {});
        } finally {
          await jobs.stop();
        }
        return { enqueued: MAIL_SWEEP_JOB };
      }
      case 'user create':
      case 'mail list':
      case 'client redirect-uris':
      case 'oidc rotate-keys':
        return await accountsCommand(command, database.dataSource, config, args.values, (name) => required(args, name));
      case 'member invite':
      case 'member withdraw':
      case 'member add':
      case 'member list':
        return await membersCommand(command, database.dataSource, config, args.values, (name) => required(args, name));
      case 'trust add':
      case 'trust list':
      case 'trust remove':
        return await trustCommand(command, database.dataSource, args.values, (name) => required(args, name));
      case 'tenant set-regulated': {
        const tenantId = required(args, 'tenant');
        const [{ RetentionService }, { AuditLogService }] = await Promise.all([import('../src/retention/retention.service.js'), import('../src/audit/audit-log.service.js')]);
        await new RetentionService(database.dataSource, new AuditLogService(database.dataSource)).setRegulated(tenantId, !args.values.off);
        return { tenant_id: tenantId, regulated: !args.values.off };
      }
      case 'audit replicate':
        return await (await import('./cli/audit.cli.js')).auditReplicateCommand(config, database);
      case 'vault purge-expired': {
        return await purgeExpiredCommand(config, database);
      }
      case 'vault migrate':
        return await vaultMigrateCommand(config, database, args);
      case 'dsr purge-due': {
        const asOf = typeof args.values['as-of'] === 'string' ? new Date(args.values['as-of']) : new Date();
        if (Number.isNaN(asOf.getTime())) throw new UsageError('--as-of must be an ISO 8601 date');
        const { enqueuePurgesDue } = await import('../src/data-rights/purge-due.command.js');
        const jobs = await startJobQueue(config, database);
        try {
          return await enqueuePurgesDue(database.dataSource, jobs, asOf);
        } finally {
          await jobs.stop();
        }
      }
      case 'sanctions load':
      case 'sanctions list':
      case 'sanctions refresh':
      case 'tenant set-threshold':
        return await sanctionsCommand(command, config, database, args);
      default: {
        const keyId = required(args, 'key');
        await tenants.revokeKey(keyId);
        return { key_id: keyId, revoked: true };
      }
    }
  } finally {
    await database.close();
  }
}

/** The purge the hourly job runs, from the command line: `biometric.purged` deliveries are queued like the job's. */
async function purgeExpiredCommand(config: Config, database: Database): Promise<unknown> {
  const [{ WebhookDispatcher }, { PostgresArtifactStore }, { createBlobStore }, { ArtifactPurger }, { BlobReaper }, { AuditLogService }] = await Promise.all([
    import('../src/webhooks/webhook.dispatcher.js'),
    import('../src/vault/postgres-artifact-store.js'),
    import('../src/vault/create-blob-store.js'),
    import('../src/vault/artifact-purger.js'),
    import('../src/vault/blob-reaper.js'),
    import('../src/audit/audit-log.service.js'),
  ]);
  const db = database.dataSource;
  const jobs = await startJobQueue(config, database);
  try {
    const dispatcher = new WebhookDispatcher(jobs, { expireInSeconds: Math.ceil(config.webhooks.timeoutMs / 1000) + 5, db });
    await jobs.ensureQueue(dispatcher.queue, { notify: true });
    const store = new PostgresArtifactStore(db, database.sql);
    const blobs = await createBlobStore(config);
    // Blobs of committed batches are deleted here at once; the server's hourly sweep takes any a crash leaves.
    const purger = new ArtifactPurger(db, store, new AuditLogService(db), dispatcher, { reaper: blobs ? new BlobReaper(store, blobs, jobs) : null });
    const outcome = await purger.purgeExpired(1_000_000);
    return { purged: outcome.purged, by_class: outcome.byClass };
  } finally {
    await jobs.stop();
  }
}

/** Moves bytea artifacts to the configured blob store; `--to` must name it, so the servers read what it writes. */
async function vaultMigrateCommand(config: Config, database: Database, args: Args): Promise<unknown> {
  const to = required(args, 'to');
  if (to !== 'fs' && to !== 's3') throw new UsageError('--to is fs or s3');
  if (config.vault.store !== to) throw new UsageError(`VAULT_STORE is ${config.vault.store}: set VAULT_STORE=${to} (here and on every server, so new uploads go there too) before moving artifacts to ${to}`);
  const [{ createBlobStore }, { migrateToBlobStore, terminalProgress }, { PostgresArtifactStore }] = await Promise.all([
    import('../src/vault/create-blob-store.js'),
    import('../src/vault/vault-migrate.command.js'),
    import('../src/vault/postgres-artifact-store.js'),
  ]);
  const blobs = (await createBlobStore(config))!;
  const tty = !args.values.json && process.stderr.isTTY;
  const outcome = await migrateToBlobStore(new PostgresArtifactStore(database.dataSource, database.sql), blobs, tty ? terminalProgress(process.stderr) : undefined);
  return { to, moved: outcome.moved, bytes: outcome.bytes, skipped: outcome.skipped };
}

async function limitsCommand(command: string, overrides: RateLimitOverrides, args: Args): Promise<unknown> {
  if (command === 'limits list') {
    const tenant = typeof args.values.tenant === 'string' ? args.values.tenant : undefined;
    return { overrides: (await overrides.list(tenant)).map((o) => ({ tenant_id: o.tenantId, bucket: o.bucket, limit: o.limit, updated_at: o.updatedAt.toISOString() })) };
  }
  const tenantId = required(args, 'tenant');
  const bucket = required(args, 'bucket');
  if (command === 'limits clear') {
    await overrides.set(tenantId, bucket, null);
    return { tenant_id: tenantId, bucket, limit: null };
  }
  const raw = required(args, 'limit');
  if (!/^\d+$/.test(raw)) throw new UsageError('--limit is a positive integer (requests per sliding 60 s window)');
  const o = await overrides.set(tenantId, bucket, Number(raw));
  return { tenant_id: tenantId, bucket, limit: o?.limit ?? null };
}

async function sanctionsCommand(command: string, config: Config, database: Database, args: Args): Promise<unknown> {
  const [{ LIST_IDS }, { REFRESH_SANCTIONS_JOB }, { SanctionsListRepository }, { isListFormat, isListId, LIST_FORMATS, SanctionsListService }] = await Promise.all([
    import('../src/sanctions/index.js'),
    import('../src/sanctions/refresh-sanctions.job.js'),
    import('../src/sanctions/sanctions-list.repository.js'),
    import('../src/sanctions/sanctions-list.service.js'),
  ]);
  const repo = new SanctionsListRepository(database.dataSource);
  const lists = new SanctionsListService(repo);
  const listArg = (): ListId => {
    const list = required(args, 'list');
    if (!isListId(list)) throw new UsageError(`--list is one of ${LIST_IDS.join(', ')}`);
    return list;
  };
  switch (command) {
    case 'tenant set-threshold': {
      const raw = required(args, 'threshold');
      if (!/^(0(\.\d+)?|1(\.0+)?)$/.test(raw)) throw new UsageError('--threshold is a number between 0.3 and 1, e.g. 0.8');
      const tenantId = required(args, 'tenant');
      await repo.setTenantThreshold(tenantId, Number(raw));
      return { tenant_id: tenantId, sanctions_threshold: Number(raw) };
    }
    case 'sanctions list': {
      const { current } = await lists.overview(1);
      const now = Date.now();
      return {
        lists: LIST_IDS.map((list) => {
          const v = current.get(list);
          return v
            ? { list, version: v.version, entries: v.entryCount, source_file: v.sourceFile, loaded_at: v.loadedAt.toISOString(), age_seconds: Math.floor((now - v.loadedAt.getTime()) / 1000) }
            : { list, version: null, entries: 0, source_file: null, loaded_at: null, age_seconds: null };
        }),
      };
    }
    case 'sanctions refresh': {
      const only = typeof args.values.list === 'string' ? [listArg()] : undefined;
      if (!Object.keys(config.sanctions.urls).length) throw new UsageError('every SANCTIONS_URL_* is off in this environment: nothing to refresh');
      // Any instance's worker may run it: it carries this environment's SANCTIONS_URL_* so every instance fetches the same sources.
      const jobs = await startJobQueue(config, database);
      try {
        await jobs.send<RefreshSanctionsData>(REFRESH_SANCTIONS_JOB, { ...(only ? { lists: only } : {}), urls: config.sanctions.urls }, { retry: { limit: 0, delaySeconds: 0 } });
      } finally {
        await jobs.stop();
      }
      return { enqueued: REFRESH_SANCTIONS_JOB, lists: only ?? 'all configured' };
    }
    default: {
      const list = listArg();
      const format = typeof args.values.format === 'string' ? args.values.format : 'auto';
      if (format !== 'auto' && !isListFormat(format)) throw new UsageError(`--format is one of ${LIST_FORMATS.join(', ')}`);
      const file = required(args, 'file');
      const extra = (['alt', 'add', 'comments'] as const).filter((o) => typeof args.values[o] === 'string');
      if (extra.length && list !== 'ofac') throw new UsageError(`--${extra[0]} belongs to the OFAC CSV set (--list ofac)`);
      const data = extra.length
        ? {
            sdn: readFileArg(args, 'file'),
            alt: typeof args.values.alt === 'string' ? readFileArg(args, 'alt') : undefined,
            add: typeof args.values.add === 'string' ? readFileArg(args, 'add') : undefined,
            comments: typeof args.values.comments === 'string' ? readFileArg(args, 'comments') : undefined,
          }
        : readFileArg(args, 'file');
      return lists.load(list, format as ListFormat | 'auto', path.basename(file), data);
    }
  }
}

/** Reads a file argument, or fails as a usage error naming the option. */
function readFileArg(args: Args, name: string): Buffer {
  const file = required(args, name);
  try {
    return readFileSync(file);
  } catch (err) {
    throw new UsageError(`--${name}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

async function cscaImport(store: PostgresCscaTrustStore, args: Args): Promise<unknown> {
  if (typeof args.values['trust-certificate'] === 'string') {
    if (args.values.masterlist !== undefined || args.values.anchor !== undefined) throw new UsageError('--trust-certificate cannot be combined with --masterlist/--anchor');
    // Production trust must come from a master list verified against its anchor; this bypasses that.
    process.stderr.write(
      'WARNING: trusting a CSCA certificate without a verified master list. Use this only for test vectors, development, or a certificate you verified out of band.\n',
    );
    return store.trustCertificate(readFileArg(args, 'trust-certificate'));
  }
  return store.importMasterList(readFileArg(args, 'masterlist'), readFileArg(args, 'anchor'));
}

async function cscaList(store: PostgresCscaTrustStore, args: Args): Promise<unknown> {
  const { encodeCscaCursor } = await import('../src/chip/postgres-csca.trust-store.js');
  const country = typeof args.values.country === 'string' ? args.values.country : null;
  const certificates = [];
  let after: string | null = null;
  for (;;) {
    const page = await store.list({ first: 100, after, country });
    certificates.push(...page.certificates);
    if (!page.hasNextPage) break;
    after = encodeCscaCursor(page.certificates.at(-1)!.fingerprintSha256);
  }
  return {
    certificates: certificates.map((c) => ({
      fingerprint_sha256: c.fingerprintSha256,
      country: c.country,
      subject: c.subject.split('\n').join(', '),
      not_after: c.notAfter.toISOString(),
      source: c.source,
    })),
  };
}

/**
 * The deployment's one-shot migration (docs/deploy.md): the schema's migrations, under the same advisory
 * lock as a start-up's, then the job queue's own schema, which pg-boss creates or upgrades as it starts.
 */
async function migrateCommand(config: Config): Promise<Record<string, unknown>> {
  const database = await openDatabase({ ...config, migrations: 'run' }, 2);
  try {
    const jobs = await startJobQueue(config, database);
    await jobs.stop();
    const [last] = (await database.dataSource.query('SELECT name FROM typeorm_migrations ORDER BY id DESC LIMIT 1')) as { name: string }[];
    return { applied: database.applied, schema_at: last?.name ?? null, job_schema: config.jobSchema };
  } finally {
    await database.close();
  }
}

/** The job queue, for the commands that enqueue work for the servers' workers (none of them works jobs itself). */
async function startJobQueue(config: Config, database: Database): Promise<JobQueue> {
  const [{ JobQueue }, { createLogger }] = await Promise.all([import('../src/jobs/job-queue.js'), import('../src/logger.js')]);
  return JobQueue.start(database.ownerTarget, createLogger('silent'), { pollSeconds: 1, supervise: false, schema: config.jobSchema, retryScale: config.jobRetryScale, appRole: database.appRole });
}

function printHuman(result: unknown): void {
  for (const [k, v] of Object.entries(result as Record<string, unknown>)) {
    if (Array.isArray(v)) {
      for (const row of v) process.stdout.write(`${typeof row === 'object' && row !== null ? Object.values(row).join('\t') : String(row)}\n`);
    } else {
      process.stdout.write(`${k}: ${String(v)}\n`);
    }
  }
}

/** What one command came to: its exit status, and its result, its error or its usage message. */
type CommandOutcome =
  | { exitCode: 0; result: unknown }
  | { exitCode: 1; error: { code: string; message: string; file?: string; position?: unknown } }
  | { exitCode: 2; usage: string };

/** Runs one command; every failure becomes its outcome (nothing here exits the process). */
async function outcomeOf(argv: string[]): Promise<CommandOutcome> {
  try {
    return { exitCode: 0, result: await run(argv) };
  } catch (err) {
    if (err instanceof UsageError) return { exitCode: 2, usage: err.message };
    const [{ isChipInputError }, { SanctionsLoadError }] = await Promise.all([import('../src/chip/chip.errors.js'), import('../src/sanctions/index.js')]);
    const code = err instanceof DomainError || isChipInputError(err) || err instanceof SanctionsLoadError ? err.code : 'internal_error';
    const message = err instanceof Error ? err.message : String(err);
    // A rejected list file names the file and the position of the defect (the previous version stays in force).
    const where = err instanceof SanctionsLoadError ? { file: err.fileName, position: err.position } : {};
    return { exitCode: 1, error: { code, message, ...where } };
  }
}

/** The longest line a batch reads as a command (a command's arguments are names, ids and paths, never data). */
const MAX_BATCH_LINE = 64 * 1024;

/** Commands a batch refuses: one that runs until stopped, and a batch inside a batch. */
const NOT_IN_A_BATCH = new Set(['webhooks', 'batch']);

/**
 * `batch`: one command per line of standard input, each a JSON array of its arguments (`["tenant","create","--name","acme"]`),
 * run one after the other in this one process; one JSON line out per line in, in order: `{"exit_code":0,"result":...}`,
 * `{"exit_code":1,"error":{"code","message"}}` or `{"exit_code":2,"usage":"..."}`. A failed command does not stop the
 * batch; the exit status is 1 if any failed. For scripts that run many commands (provisioning tenants, members, keys):
 * a process start costs some 0.5 s of CPU, a command in a running batch a few milliseconds of it.
 */
async function batch(): Promise<number> {
  let failed = false;
  for await (const line of boundedLines(process.stdin, MAX_BATCH_LINE)) {
    if (line !== null && !line.trim()) continue;
    const argv = batchArguments(line);
    const outcome: CommandOutcome = typeof argv === 'string' ? { exitCode: 2, usage: argv } : await outcomeOf(argv);
    failed ||= outcome.exitCode !== 0;
    const { exitCode, ...rest } = outcome;
    process.stdout.write(`${JSON.stringify({ exit_code: exitCode, ...rest })}\n`);
  }
  return failed ? 1 : 0;
}

/** One batch line's command arguments, or why it is refused (`null`: a line over MAX_BATCH_LINE, already dropped). */
function batchArguments(line: string | null): string[] | string {
  let argv: unknown;
  try {
    argv = line === null ? null : JSON.parse(line);
  } catch {
    argv = null;
  }
  if (!Array.isArray(argv) || !argv.every((a) => typeof a === 'string')) {
    return `Each line of a batch is a JSON array of one command's arguments, e.g. ["tenant","list"], of at most ${MAX_BATCH_LINE} characters`;
  }
  // A process's arguments cannot hold NUL or an unpaired surrogate; a JSON string can: refused here, as no command expects them.
  if (argv.some(hasUnstorableCharacters)) return 'An argument cannot contain a NUL character or an unpaired UTF-16 surrogate';
  if (NOT_IN_A_BATCH.has(argv[0] as string)) return `${String(argv[0])} cannot run in a batch`;
  return argv as string[];
}

const argv = process.argv.slice(2);
if (argv[0] === 'batch' && argv.length === 1) {
  void batch().then((code) => {
    process.exitCode = code;
  });
} else {
  void outcomeOf(argv).then((outcome) => {
    const json = argv.includes('--json');
    if (outcome.exitCode === 0) {
      if (json) process.stdout.write(`${JSON.stringify(outcome.result)}\n`);
      else printHuman(outcome.result);
      return;
    }
    if (outcome.exitCode === 2) {
      process.stderr.write(`${outcome.usage ? `${outcome.usage}\n\n` : ''}${USAGE}\n`);
      process.exit(2);
    }
    if (json) process.stdout.write(`${JSON.stringify({ error: outcome.error })}\n`);
    else process.stderr.write(`error: ${outcome.error.message}\n`);
    process.exit(1);
  });
}
