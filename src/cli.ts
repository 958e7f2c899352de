import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from './config';
import { openDatabase } from './db/database';
import { DomainError } from './errors';
import { TenantService } from './tenants/tenant.service';
import { isChipInputError } from './chip/chip.errors';
import { encodeCscaCursor, PostgresCscaTrustStore } from './chip/postgres-csca.trust-store';

const USAGE = `Usage: npm run --silent cli -- <command> [options]

  tenant create --name <name> [--json]        a tenant, its default flow, one test and one live key
  tenant list [--json]
  key create --tenant <id> --mode test|live [--scopes a,b] [--json]
  key revoke --key <key id> [--json]
  csca import --masterlist <file.ml> --anchor <root.cer> [--json]
                                              trust the CSCAs of an ICAO master list, after verifying
                                              its signature and signer chain against the anchor
  csca import --trust-certificate <csca.der> [--json]
                                              trust ONE certificate without a master list: for test
                                              vectors and development only (prints a warning)
  csca list [--country DE] [--json]

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
      help: { type: 'boolean' },
    },
  });
  const [group, action] = args.positionals;
  if (args.values.help || !group) throw new UsageError('');
  const command = `${group} ${action ?? ''}`.trim();
  const known = ['tenant create', 'tenant list', 'key create', 'key revoke', 'csca import', 'csca list'];
  if (!known.includes(command)) throw new UsageError(`Unknown command: ${command}`);

  const config = loadConfig();
  const database = await openDatabase(config, 2);
  try {
    const tenants = new TenantService(database.dataSource);
    switch (command) {
      case 'tenant create': {
        const t = await tenants.create(required(args, 'name'));
        return { tenant_id: t.tenantId, test_api_key: t.testKey.key, live_api_key: t.liveKey.key };
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
        return await cscaImport(new PostgresCscaTrustStore(database.dataSource), args);
      case 'csca list':
        return await cscaList(new PostgresCscaTrustStore(database.dataSource), args);
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

function printHuman(result: unknown): void {
  for (const [k, v] of Object.entries(result as Record<string, unknown>)) {
    if (Array.isArray(v)) {
      for (const row of v) process.stdout.write(`${typeof row === 'object' && row !== null ? Object.values(row).join('\t') : String(row)}\n`);
    } else {
      process.stdout.write(`${k}: ${String(v)}\n`);
    }
  }
}

const argv = process.argv.slice(2);
run(argv).then(
  (result) => {
    if (argv.includes('--json')) process.stdout.write(`${JSON.stringify(result)}\n`);
    else printHuman(result);
  },
  (err: unknown) => {
    const json = argv.includes('--json');
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message ? `${err.message}\n\n` : ''}${USAGE}\n`);
      process.exit(2);
    }
    const code = err instanceof DomainError || isChipInputError(err) ? err.code : 'internal_error';
    const message = err instanceof Error ? err.message : String(err);
    if (json) process.stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
    else process.stderr.write(`error: ${message}\n`);
    process.exit(1);
  },
);
