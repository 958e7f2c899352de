import { verify, type X509Certificate } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate, CertificateList, CRLDistributionPoints, id_ce_cRLDistributionPoints } from '@peculiar/asn1-x509';
import { DigitalIdVerificationError } from './digital-id.errors';

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
 * The document signer is not on its IACA's CRL (ISO/IEC 18013-5 Annex B: an IACA names the CRL it keeps for
 * the certificates it issued in its CRL distribution points). Where the IACA names none there is nothing to
 * check and this answers false. Where it names one, the CRL must be fetched, signed by the IACA, issued by it
 * and current (thisUpdate passed, nextUpdate not): anything less is `revocation_unavailable`, which makes the
 * check an error (a person decides), never a pass. A listed serial is `issuer_certificate_revoked`.
 */
export async function checkSignerNotRevoked(input: { signer: X509Certificate; anchor: X509Certificate; now: Date; fetchCrl?: CrlFetcher }): Promise<boolean> {
  const anchor = AsnConvert.parse(input.anchor.raw, Certificate);
  const uris = crlUris(anchor);
  if (uris.length === 0) return false;
  if (!input.fetchCrl) throw new DigitalIdVerificationError('revocation_unavailable', 'the IACA names a CRL and no CRL fetcher is configured');
  let lastProblem = 'no CRL could be read';
  for (const uri of uris) {
    let crl: CertificateList;
    try {
      crl = AsnConvert.parse(await input.fetchCrl(uri), CertificateList);
    } catch {
      lastProblem = 'the CRL could not be fetched or read';
      continue;
    }
    const problem = crlProblem(crl, anchor, input.anchor, input.now);
    if (problem) {
      lastProblem = problem;
      continue;
    }
    const serial = normaliseSerial(input.signer.serialNumber);
    if ((crl.tbsCertList.revokedCertificates ?? []).some((r) => normaliseSerial(Buffer.from(r.userCertificate).toString('hex')) === serial)) {
      throw new DigitalIdVerificationError('issuer_certificate_revoked', 'the document signer certificate is on its IACA\'s CRL');
    }
    return true;
  }
  throw new DigitalIdVerificationError('revocation_unavailable', lastProblem);
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

function crlProblem(crl: CertificateList, anchor: Certificate, anchorX509: X509Certificate, now: Date): string | null {
  const hash = HASH_BY_OID[crl.signatureAlgorithm.algorithm];
  if (!hash) return 'the CRL is signed with an unsupported algorithm';
  const issuer = Buffer.from(AsnConvert.serialize(crl.tbsCertList.issuer));
  if (!issuer.equals(Buffer.from(AsnConvert.serialize(anchor.tbsCertificate.subject)))) return 'the CRL was not issued by the IACA';
  const tbs = Buffer.from(AsnConvert.serialize(crl.tbsCertList));
  if (!verify(hash, tbs, anchorX509.publicKey, Buffer.from(crl.signature))) return 'the CRL signature does not verify';
  if (crl.tbsCertList.thisUpdate.getTime().getTime() > now.getTime()) return 'the CRL is not yet valid';
  const next = crl.tbsCertList.nextUpdate?.getTime();
  if (next && next.getTime() <= now.getTime()) return 'the CRL is out of date (past its nextUpdate)';
  return null;
}

function normaliseSerial(hex: string): string {
  return hex.toLowerCase().replace(/^(00)+/, '');
}
