import { ParsedCertificate, parseCertificate } from './certificate.parser';

/** A Country Signing CA certificate the service trusts, as imported from a verified master list. */
export interface CscaCertificate {
  readonly der: Buffer;
  readonly subject: string;
  readonly issuer: string;
  /** Lower-case hex; null when the certificate has no subjectKeyIdentifier extension. */
  readonly subjectKeyIdentifier: string | null;
  readonly authorityKeyIdentifier: string | null;
  readonly serialNumber: string;
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly fingerprintSha256: string;
  /** Lookup key for the subject name; see distinguishedNameKey. */
  readonly subjectKey: string;
}

/** What a trust store may use to find the issuer of a Document Signer certificate. */
export interface DocumentSignerLookup {
  /** Lower-case hex of the DS authorityKeyIdentifier, when present. */
  readonly authorityKeyIdentifier: string | null;
  readonly issuer: string;
  /** distinguishedNameKey(issuer). */
  readonly issuerKey: string;
}

/**
 * Finds candidate CSCAs for a DS certificate. Candidates are only hints: the verifier accepts
 * one only if its public key verifies the DS signature, so a certificate with the same name
 * but another key is never a match.
 */
export interface CscaTrustStore {
  candidatesFor(ds: DocumentSignerLookup): CscaCertificate[] | Promise<CscaCertificate[]>;
}

/**
 * Order-insensitive, case-insensitive key for a distinguished name in node:crypto's
 * "C=DE\nO=...\nCN=..." form. Issuers are inconsistent about RDN order and case, and the key
 * only narrows candidates: trust still rests on the signature.
 */
export function distinguishedNameKey(name: string): string {
  return name
    .split('\n')
    .map((part) => part.trim().replace(/\s+/g, ' ').toLowerCase())
    .filter((part) => part.length > 0)
    .sort()
    .join('\n');
}

export function toCscaCertificate(certificate: ParsedCertificate): CscaCertificate {
  return {
    der: certificate.der,
    subject: certificate.subject,
    issuer: certificate.issuer,
    subjectKeyIdentifier: certificate.subjectKeyIdentifier?.toString('hex') ?? null,
    authorityKeyIdentifier: certificate.authorityKeyIdentifier?.toString('hex') ?? null,
    serialNumber: certificate.serialNumber.toString('hex'),
    notBefore: certificate.notBefore,
    notAfter: certificate.notAfter,
    fingerprintSha256: certificate.fingerprintSha256,
    subjectKey: distinguishedNameKey(certificate.subject),
  };
}

export function documentSignerLookup(ds: ParsedCertificate): DocumentSignerLookup {
  return {
    authorityKeyIdentifier: ds.authorityKeyIdentifier?.toString('hex') ?? null,
    issuer: ds.issuer,
    issuerKey: distinguishedNameKey(ds.issuer),
  };
}

/** In-memory trust store, for tests, benchmarks and as a cache in front of the database. */
export class InMemoryCscaTrustStore implements CscaTrustStore {
  private readonly byKeyId = new Map<string, CscaCertificate[]>();
  private readonly bySubject = new Map<string, CscaCertificate[]>();
  private readonly fingerprints = new Set<string>();

  constructor(certificates: Iterable<CscaCertificate> = []) {
    for (const certificate of certificates) this.add(certificate);
  }

  /** Adds a certificate given as DER or as an already imported CscaCertificate; duplicates are ignored. */
  add(certificate: CscaCertificate | Buffer): void {
    const csca = Buffer.isBuffer(certificate) ? toCscaCertificate(parseCertificate(certificate)) : certificate;
    if (this.fingerprints.has(csca.fingerprintSha256)) return;
    this.fingerprints.add(csca.fingerprintSha256);
    if (csca.subjectKeyIdentifier) push(this.byKeyId, csca.subjectKeyIdentifier, csca);
    push(this.bySubject, csca.subjectKey, csca);
  }

  get size(): number {
    return this.fingerprints.size;
  }

  candidatesFor(ds: DocumentSignerLookup): CscaCertificate[] {
    const byKey = ds.authorityKeyIdentifier ? this.byKeyId.get(ds.authorityKeyIdentifier) ?? [] : [];
    const byName = this.bySubject.get(ds.issuerKey) ?? [];
    // Key-identifier matches first: they are the likelier issuer when names are reused.
    return [...new Set([...byKey, ...byName])];
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
