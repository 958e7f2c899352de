import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import type { TrustedIssuerKey } from './sd-jwt-vc-verifier';

export type TrustEnvironment = 'test' | 'live';
export type TrustRootKind = 'iaca' | 'sd_jwt_vc_issuer';

export interface TrustRoot {
  readonly environment: TrustEnvironment;
  readonly kind: TrustRootKind;
  readonly fingerprintSha256: string;
  readonly subject: string;
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly source: 'pem' | 'vical' | 'builtin';
}

/** What a verification in one environment may trust. */
export interface DigitalIdTrust {
  readonly iacaRoots: readonly Uint8Array[];
  readonly sdJwtVcRoots: readonly Uint8Array[];
  readonly issuerKeys: readonly TrustedIssuerKey[];
}

export class TrustStoreInputError extends Error {}

/** The project's test IACA (assets/digital-id/README.md); resolved from src/ and from dist/src/. */
export function projectTestIacaPem(): string {
  const fromSrc = path.resolve(__dirname, '..', '..', 'assets', 'digital-id', 'test-iaca.pem');
  const fromDist = path.resolve(__dirname, '..', '..', '..', 'assets', 'digital-id', 'test-iaca.pem');
  return readFileSync(__dirname.includes(`${path.sep}dist${path.sep}`) ? fromDist : fromSrc, 'utf8');
}

/**
 * Trust roots for digital IDs, per environment. Test mode always trusts the project's test IACA (for
 * both formats) on top of what operators add; live mode trusts only what operators add and refuses the
 * test IACA outright, so a test credential can never pass a live session.
 */
export class DigitalIdTrustStore {
  private readonly testIaca = new X509Certificate(projectTestIacaPem());

  constructor(private readonly db: DataSource) {}

  async trustFor(environment: TrustEnvironment): Promise<DigitalIdTrust> {
    const rows: Array<{ kind: TrustRootKind; der: Buffer }> = await this.db.query(
      `SELECT kind, der FROM digital_id_trust_roots WHERE environment = $1 ORDER BY fingerprint_sha256`,
      [environment],
    );
    const of = (kind: TrustRootKind) => rows.filter((r) => r.kind === kind).map((r) => new Uint8Array(r.der));
    const builtin = environment === 'test' ? [new Uint8Array(this.testIaca.raw)] : [];
    return { iacaRoots: [...builtin, ...of('iaca')], sdJwtVcRoots: [...builtin, ...of('sd_jwt_vc_issuer')], issuerKeys: [] };
  }

  /** Adds every certificate of a PEM bundle; all must be CA certificates. All or nothing. */
  async addPem(environment: TrustEnvironment, kind: TrustRootKind, pem: string): Promise<TrustRoot[]> {
    return this.addCertificates(environment, kind, parsePemBundle(pem), 'pem');
  }

  /**
   * Adds the IACAs a VICAL lists, once its signature verifies and its signer chains to one of the
   * anchors (the VICAL provider's root, given as PEM). All or nothing, like a PEM bundle.
   */
  async addVical(environment: TrustEnvironment, vical: Uint8Array, anchorPem: string, now: Date): Promise<{ provider: string; issueId: number | null; added: TrustRoot[] }> {
    const anchors = parsePemBundle(anchorPem);
    // The VICAL reader (CBOR, COSE, X.509 paths) is loaded by the command that adds one, not by every server's start.
    const { readVical, VicalError } = await import('./vical.js');
    let read;
    try {
      read = readVical(vical, anchors, now);
    } catch (error) {
      if (error instanceof VicalError) throw new TrustStoreInputError(error.message);
      throw error;
    }
    const added = await this.addCertificates(environment, 'iaca', read.iacas.map((i) => i.certificate), 'vical');
    return { provider: read.provider, issueId: read.issueId, added };
  }

  private async addCertificates(environment: TrustEnvironment, kind: TrustRootKind, certificates: X509Certificate[], source: 'pem' | 'vical'): Promise<TrustRoot[]> {
    for (const certificate of certificates) {
      if (!certificate.ca) throw new TrustStoreInputError(`"${oneLine(certificate.subject)}" is not a CA certificate`);
      if (environment === 'live' && certificate.fingerprint256 === this.testIaca.fingerprint256) {
        throw new TrustStoreInputError('the project test IACA is never trusted in live mode');
      }
    }
    const added: TrustRoot[] = [];
    await this.db.transaction(async (manager) => {
      for (const certificate of certificates) {
        const root = toRoot(environment, kind, certificate, source);
        await manager.query(
          `INSERT INTO digital_id_trust_roots (environment, kind, fingerprint_sha256, der, subject, not_before, not_after, source)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
          [environment, kind, root.fingerprintSha256, certificate.raw, root.subject, root.notBefore, root.notAfter, source],
        );
        added.push(root);
      }
    });
    return added;
  }

  async list(environment?: TrustEnvironment): Promise<TrustRoot[]> {
    const rows: Array<{ environment: TrustEnvironment; kind: TrustRootKind; fingerprint_sha256: string; subject: string; not_before: Date; not_after: Date; source: 'pem' | 'vical' }> =
      await this.db.query(
        `SELECT environment, kind, fingerprint_sha256, subject, not_before, not_after, source FROM digital_id_trust_roots
         WHERE ($1::text IS NULL OR environment = $1) ORDER BY environment, kind, subject`,
        [environment ?? null],
      );
    const stored = rows.map((r) => ({
      environment: r.environment,
      kind: r.kind,
      fingerprintSha256: r.fingerprint_sha256,
      subject: r.subject,
      notBefore: new Date(r.not_before),
      notAfter: new Date(r.not_after),
      source: r.source,
    }));
    const builtin =
      environment === 'live' ? [] : (['iaca', 'sd_jwt_vc_issuer'] as const).map((kind) => toRoot('test', kind, this.testIaca, 'builtin'));
    return [...builtin, ...stored];
  }

  /** Removes a root from one environment; the built-in test IACA cannot be removed. */
  async remove(environment: TrustEnvironment, fingerprintSha256: string): Promise<number> {
    const fingerprint = normaliseFingerprint(fingerprintSha256);
    if (fingerprint === normaliseFingerprint(this.testIaca.fingerprint256)) {
      throw new TrustStoreInputError('the project test IACA is built in: test mode always trusts it');
    }
    const existing: unknown[] = await this.db.query(
      `SELECT 1 FROM digital_id_trust_roots WHERE environment = $1 AND fingerprint_sha256 = $2`,
      [environment, fingerprint],
    );
    if (existing.length === 0) return 0;
    await this.db.query(`DELETE FROM digital_id_trust_roots WHERE environment = $1 AND fingerprint_sha256 = $2`, [environment, fingerprint]);
    return existing.length;
  }
}

export function parsePemBundle(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new TrustStoreInputError('no PEM certificate found');
  return blocks.map((block) => {
    try {
      return new X509Certificate(block);
    } catch {
      throw new TrustStoreInputError('a PEM block is not a certificate');
    }
  });
}

function toRoot(environment: TrustEnvironment, kind: TrustRootKind, certificate: X509Certificate, source: TrustRoot['source']): TrustRoot {
  return {
    environment,
    kind,
    fingerprintSha256: normaliseFingerprint(certificate.fingerprint256),
    subject: oneLine(certificate.subject),
    notBefore: new Date(certificate.validFrom),
    notAfter: new Date(certificate.validTo),
    source,
  };
}

function normaliseFingerprint(value: string): string {
  return value.replaceAll(':', '').toLowerCase();
}

function oneLine(name: string): string {
  return name.split('\n').join(', ');
}
