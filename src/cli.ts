import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { loadConfig } from './config';
import { openDatabase } from './db/database';
import { DomainError } from './errors';
import { TenantService } from './tenants/tenant.service';

const USAGE = `Usage: npm run --silent cli -- <command> [options]

  tenant create --name <name> [--json]        a tenant, its default flow, one test and one live key
  tenant list [--json]
  key create --tenant <id> --mode test|live [--scopes a,b] [--json]
  key revoke --key <key id> [--json]

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
      help: { type: 'boolean' },
    },
  });
  const [group, action] = args.positionals;
  if (args.values.help || !group) throw new UsageError('');
  const command = `${group} ${action ?? ''}`.trim();
  const known = ['tenant create', 'tenant list', 'key create', 'key revoke'];
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

function printHuman(result: unknown): void {
  for (const [k, v] of Object.entries(result as Record<string, unknown>)) {
    if (Array.isArray(v)) {
      for (const row of v) process.stdout.write(`${Object.values(row as object).join('\t')}\n`);
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
    const code = err instanceof DomainError ? err.code : 'internal_error';
    const message = err instanceof Error ? err.message : String(err);
    if (json) process.stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
    else process.stderr.write(`error: ${message}\n`);
    process.exit(1);
  },
);
