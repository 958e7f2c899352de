import { readFileSync } from 'node:fs';
import type { DataSource } from 'typeorm';
import type { TrustEnvironment, TrustRootKind } from '../../src/digital-id/digital-id-trust.store';
import { DomainError } from '../../src/errors';

export const TRUST_COMMANDS = ['trust add', 'trust list', 'trust remove'];

export const TRUST_USAGE = `  trust add --environment test|live --kind iaca|sd-jwt-vc-issuer --pem <file> [--json]
                                              trust the CA certificates of a PEM file for digital IDs
                                              (D24): IACA roots for mdoc, issuer roots for SD-JWT VC
  trust add --environment test|live --vical <file> --anchor <vical-root.pem> [--json]
                                              trust the IACAs of a VICAL (AAMVA Digital Trust Service),
                                              after verifying its signature and signer against the anchor
  trust list [--environment test|live] [--json]
                                              the roots each environment trusts (test mode always
                                              includes the project's test IACA; live never does)
  trust remove --environment test|live --fingerprint <sha256> [--json]`;

type Values = Record<string, string | boolean | undefined>;

/** The trust commands of app/cli.ts (docs/digital-ids.md "Trust setup"). */
export async function trustCommand(command: string, db: DataSource, values: Values, need: (name: string) => string): Promise<unknown> {
  // Loaded here, not at the top: every CLI command loads this file (for its usage), few of them trust roots.
  const { DigitalIdTrustStore, TrustStoreInputError } = await import('../../src/digital-id/digital-id-trust.store.js');
  const store = new DigitalIdTrustStore(db);
  try {
    switch (command) {
      case 'trust add': {
        if (typeof values.vical === 'string') {
          if (values.pem !== undefined || values.kind !== undefined) throw new DomainError('invalid_request', '--vical cannot be combined with --pem or --kind (a VICAL lists IACAs)');
          const read = await store.addVical(environmentOf(need('environment')), readBytes('vical', values.vical), readPem(need('anchor'), 'anchor'), new Date());
          return { vical: { provider: read.provider, issue_id: read.issueId }, added: read.added.map(present) };
        }
        const roots = await store.addPem(environmentOf(need('environment')), kindOf(need('kind')), readPem(need('pem')));
        return { added: roots.map(present) };
      }
      case 'trust list': {
        const environment = typeof values.environment === 'string' ? environmentOf(values.environment) : undefined;
        return { roots: (await store.list(environment)).map(present) };
      }
      default: {
        const fingerprint = need('fingerprint');
        const removed = await store.remove(environmentOf(need('environment')), fingerprint);
        if (removed === 0) throw new DomainError('not_found', 'no such root in that environment');
        return { removed: fingerprint.replaceAll(':', '').toLowerCase() };
      }
    }
  } catch (error) {
    if (error instanceof TrustStoreInputError) throw new DomainError('invalid_request', error.message);
    throw error;
  }
}

function environmentOf(value: string): TrustEnvironment {
  if (value !== 'test' && value !== 'live') throw new DomainError('invalid_request', '--environment is test or live');
  return value;
}

function kindOf(value: string): TrustRootKind {
  if (value === 'iaca') return 'iaca';
  if (value === 'sd-jwt-vc-issuer') return 'sd_jwt_vc_issuer';
  throw new DomainError('invalid_request', '--kind is iaca or sd-jwt-vc-issuer');
}

function readPem(file: string, option = 'pem'): string {
  return readBytes(option, file).toString('utf8');
}

function readBytes(option: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new DomainError('invalid_request', `--${option}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

function present(root: { environment: string; kind: string; fingerprintSha256: string; subject: string; notAfter: Date; source: string }) {
  return {
    environment: root.environment,
    kind: root.kind,
    fingerprint_sha256: root.fingerprintSha256,
    subject: root.subject,
    not_after: root.notAfter.toISOString(),
    source: root.source,
  };
}
