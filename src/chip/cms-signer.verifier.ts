import { createHash } from 'node:crypto';
import { equalBytes } from './bytes.util';
import { ParsedCertificate, parseCertificate } from './certificate.parser';
import { HASH_BY_OID, HashName, Oid } from './chip.oids';
import { decodeOid, isUniversal, octetStringValue, Tag } from './der.reader';
import { Verdict } from './passive-authentication.types';
import { signedAttribute, SignedData, SignerInfo } from './signed-data.parser';
import { verifyCmsSignature } from './signature.verifier';

export interface SignerVerification {
  /** `succeeded` only when messageDigest, contentType and the signature all check out. */
  readonly verdict: Verdict;
  /** The signer's certificate: the one whose key verified, else the best sid match. */
  readonly certificate: ParsedCertificate | null;
}

/**
 * Checks a CMS SignerInfo against the certificates embedded in the SignedData. Used for the
 * SOD (signer: Document Signer) and for master lists (signer: Master List Signer).
 */
export function verifySignerInfo(signedData: SignedData, signerInfo: SignerInfo): SignerVerification {
  const signer = findSigner(signedData, signerInfo);
  return { verdict: checkSignerInfo(signedData, signerInfo, signer), certificate: signer.certificate };
}

interface SignerMatch {
  readonly certificate: ParsedCertificate | null;
  /** Whether `certificate`'s key verifies the SignerInfo signature. */
  readonly signatureValid: boolean;
  readonly unsupported: boolean;
}

/**
 * Picks the DS certificate among those embedded in the SOD. Strict sid matching fails on real
 * documents (MY lists the issuer RDNs in another order than its certificate), so candidates are
 * ranked by how well they match and the first whose key verifies the signature wins.
 */
function findSigner(signedData: SignedData, signerInfo: SignerInfo): SignerMatch {
  const certificates = signedData.certificates.flatMap((der) => {
    try {
      return [parseCertificate(der)];
    } catch {
      return []; // an unreadable extra certificate must not hide the DS
    }
  });
  const sid = signerInfo.sid;
  const score = (c: ParsedCertificate): number => {
    if (sid.kind === 'subjectKeyIdentifier') return c.subjectKeyIdentifier?.equals(sid.keyIdentifier) ? 3 : 0;
    if (c.serialNumber.equals(sid.serialNumber)) return c.issuerDer.equals(sid.issuer) ? 3 : 2;
    return 0;
  };
  const ranked = certificates.map((c) => ({ c, s: score(c) })).sort((a, b) => b.s - a.s).map(({ c }) => c);
  if (ranked.length === 0) return { certificate: null, signatureValid: false, unsupported: false };

  const signedBytes = signerInfo.signedAttrsForSignature ?? signedData.eContent;
  let unsupported = false;
  for (const candidate of ranked) {
    const outcome = verifyCmsSignature(signerInfo.signatureAlgorithm, signerInfo.digestAlgorithm, signedBytes, signerInfo.signature, candidate.publicKey);
    if (outcome === 'valid') return { certificate: candidate, signatureValid: true, unsupported: false };
    if (outcome === 'unsupported') unsupported = true;
  }
  // No key verifies: report against the best sid match, or the only certificate there is.
  const best = score(ranked[0]) > 0 || ranked.length === 1 ? ranked[0] : null;
  return { certificate: best, signatureValid: false, unsupported };
}

function checkSignerInfo(signedData: SignedData, signerInfo: SignerInfo, signer: SignerMatch): Verdict {
  const digestHash: HashName | undefined = HASH_BY_OID[signerInfo.digestAlgorithm.oid];
  if (!digestHash || signer.unsupported) return { status: 'failed', reason: 'unsupported_algorithm' };

  // ICAO 9303-10 requires signed attributes; without them the signature covers eContent directly.
  if (signerInfo.signedAttrsForSignature) {
    const contentType = signedAttribute(signerInfo, Oid.contentTypeAttr);
    if (contentType && (!isUniversal(contentType, Tag.OID) || decodeOid(contentType) !== signedData.eContentType)) {
      return { status: 'failed', reason: 'content_type_mismatch' };
    }
    const messageDigest = signedAttribute(signerInfo, Oid.messageDigestAttr);
    const expected = createHash(digestHash).update(signedData.eContent).digest();
    if (!messageDigest || !isUniversal(messageDigest, Tag.OCTET_STRING) || !equalBytes(octetStringValue(messageDigest), expected)) {
      return { status: 'failed', reason: 'message_digest_mismatch' };
    }
  }
  if (!signer.certificate) return { status: 'failed', reason: 'ds_certificate_not_found' };
  return signer.signatureValid ? { status: 'succeeded' } : { status: 'failed', reason: 'signature_invalid' };
}
