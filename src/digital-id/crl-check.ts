import { verify, type X509Certificate } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate, CertificateList, CRLDistributionPoints, id_ce_cRLDistributionPoints } from '@peculiar/asn1-x509';
import { DigitalIdVerificationError, type DigitalIdFailureReason } from './digital-id.errors';

/** Fetches a CRL (DER) by its URI; any throw makes the check an error (revocation_unavailable). */
export type CrlFetcher = (uri: string) => Promise<Uint8Array>;

/** Signature algorithms of a CRL, by OID, to node:crypto's hash (ECDSA and RSA PKCS#1 v1.5). */
const HASH_BY_OID: Record<string, string> = {
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
};

/**
 * No certificate of a validated chain is on its issuer's CRL: the signer (an mdoc document signer or an
 * SD-JWT VC issuer) and every intermediate CA below the trust anchor. Where a certificate's CRL is published:
 * its own CRL distribution points (RFC 5280 4.2.1.13) and, when its issuer is the trust anchor, the anchor's
 * (ISO/IEC 18013-5 Annex B: an IACA names the CRL it keeps for the certificates it issued). A certificate
 * with no such point has nothing to check; when none of the chain has one this answers false (the step did
 * not run). Where one is named, a CRL from it must be fetched, issued and signed by the certificate's issuer
 * and current (thisUpdate passed, nextUpdate not): anything less is `revocation_unavailable`, which makes the
 * check an error (a person decides), never a pass. A listed serial is `issuer_certificate_revoked`, naming
 * which certificate (`revokedReason` instead for a chain that signs something else than the credential: a
 * status list's).
 */
export async function checkChainNotRevoked(input: {
  path: readonly X509Certificate[];
  anchor: X509Certificate;
  now: Date;
  fetchCrl?: CrlFetcher;
  signerRole?: string;
  revokedReason?: DigitalIdFailureReason;
}): Promise<boolean> {
  let ran = false;
  for (let i = 0; i < input.path.length; i++) {
    const certificate = input.path[i];
    const issuer = i + 1 < input.path.length ? input.path[i + 1] : input.anchor;
    const issuerIsAnchor = i + 1 === input.path.length;
    const role = i === 0 ? (input.signerRole ?? 'the signer certificate') : `the intermediate CA "${oneLineName(certificate.subject)}"`;
    const revokedReason = input.revokedReason ?? 'issuer_certificate_revoked';
    if (await checkOne({ certificate, issuer, issuerIsAnchor, role, now: input.now, fetchCrl: input.fetchCrl, revokedReason })) ran = true;
  }
  return ran;
}

async function checkOne(input: { certificate: X509Certificate; issuer: X509Certificate; issuerIsAnchor: boolean; role: string; now: Date; fetchCrl?: CrlFetcher; revokedReason: DigitalIdFailureReason }): Promise<boolean> {
  const issuer = AsnConvert.parse(input.issuer.raw, Certificate);
  const own = crlUris(AsnConvert.parse(input.certificate.raw, Certificate));
  const uris = [...new Set([...own, ...(input.issuerIsAnchor ? crlUris(issuer) : [])])];
  if (uris.length === 0) return false;
  if (!input.fetchCrl) throw new DigitalIdVerificationError('revocation_unavailable', `a CRL is named for ${input.role} and no CRL fetcher is configured`);
  let lastProblem = 'no CRL could be read';
  for (const uri of uris) {
    let crl: CertificateList;
    try {
      crl = AsnConvert.parse(await input.fetchCrl(uri), CertificateList);
    } catch {
      lastProblem = 'the CRL could not be fetched or read';
      continue;
    }
    const problem = crlProblem(crl, issuer, input.issuer, input.now);
    if (problem) {
      lastProblem = problem;
      continue;
    }
    const serial = normaliseSerial(input.certificate.serialNumber);
    if ((crl.tbsCertList.revokedCertificates ?? []).some((r) => normaliseSerial(Buffer.from(r.userCertificate).toString('hex')) === serial)) {
      throw new DigitalIdVerificationError(input.revokedReason, `${input.role} is on its issuer's CRL`);
    }
    return true;
  }
  throw new DigitalIdVerificationError('revocation_unavailable', `${input.role}: ${lastProblem}`);
}

function oneLineName(name: string): string {
  return name.split('\n').join(', ');
}

function crlUris(certificate: Certificate): string[] {
  const extension = certificate.tbsCertificate.extensions?.find((e) => e.extnID === id_ce_cRLDistributionPoints);
  if (!extension) return [];
  const points = AsnConvert.parse(extension.extnValue, CRLDistributionPoints);
  return points
    .flatMap((p) => p.distributionPoint?.fullName ?? [])
    .map((name) => name.uniformResourceIdentifier)
    .filter((uri): uri is string => typeof uri === 'string' && /^https?:\/\//.test(uri));
}

function crlProblem(crl: CertificateList, issuer: Certificate, issuerX509: X509Certificate, now: Date): string | null {
  const hash = HASH_BY_OID[crl.signatureAlgorithm.algorithm];
  if (!hash) return 'the CRL is signed with an unsupported algorithm';
  const crlIssuer = Buffer.from(AsnConvert.serialize(crl.tbsCertList.issuer));
  if (!crlIssuer.equals(Buffer.from(AsnConvert.serialize(issuer.tbsCertificate.subject)))) return 'the CRL was not issued by the certificate\'s issuer';
  const tbs = Buffer.from(AsnConvert.serialize(crl.tbsCertList));
  if (!verify(hash, tbs, issuerX509.publicKey, Buffer.from(crl.signature))) return 'the CRL signature does not verify';
  if (crl.tbsCertList.thisUpdate.getTime().getTime() > now.getTime()) return 'the CRL is not yet valid';
  const next = crl.tbsCertList.nextUpdate?.getTime();
  if (next && next.getTime() <= now.getTime()) return 'the CRL is out of date (past its nextUpdate)';
  return null;
}

function normaliseSerial(hex: string): string {
  return hex.toLowerCase().replace(/^(00)+/, '');
}
