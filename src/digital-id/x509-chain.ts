import { X509Certificate } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate, id_ce_keyUsage, KeyUsage, KeyUsageFlags } from '@peculiar/asn1-x509';
import { DigitalIdVerificationError } from './digital-id.errors';

/** ISO 18013-5 Annex B: extended key usage of an mdoc document signer certificate (id-mdl-kp-mdlDS). */
export const MDL_DOCUMENT_SIGNER_EKU = '1.0.18013.5.1.2';

export interface ValidatedChain {
  readonly signer: X509Certificate;
  readonly anchor: X509Certificate;
  /** The validated certificates below the anchor, signer first (intermediates after it). */
  readonly path: readonly X509Certificate[];
}

export interface ChainOptions {
  /** Leaf first, as COSE `x5chain` and JOSE `x5c` carry it. */
  readonly chain: readonly Uint8Array[];
  readonly trustedRoots: readonly Uint8Array[];
  readonly now: Date;
  /** When set, the signer certificate must list this extended key usage. */
  readonly requiredSignerEku?: string;
}

/**
 * Validates a signer certificate up to a trust anchor from the store: every link's signature, every
 * certificate's validity at `now`, key usage (the signer signs, the CAs sign certificates) and basic
 * constraints. A root sent inside the chain is never trusted for being there: only the store's roots anchor.
 * Revocation is crl-check.ts's, on the returned path; OCSP is not consulted (docs/digital-ids.md says so).
 */
export function validateCertificateChain(options: ChainOptions): ValidatedChain {
  if (options.chain.length === 0) {
    throw new DigitalIdVerificationError('issuer_certificate_invalid', 'the issuer sent no certificate');
  }
  let path = options.chain.map((der) => parse(der));
  const roots = options.trustedRoots.map((der) => parse(der));
  if (roots.length === 0) {
    throw new DigitalIdVerificationError('untrusted_issuer', 'no trusted roots are configured');
  }

  const top = path[path.length - 1];
  let anchor = roots.find((root) => root.fingerprint256 === top.fingerprint256);
  if (anchor && path.length > 1) path = path.slice(0, -1);
  anchor ??= roots.find((root) => top.checkIssued(root) && top.verify(root.publicKey));
  if (!anchor) {
    throw new DigitalIdVerificationError('untrusted_issuer', `no trusted root issued "${oneLine(top.issuer)}"`);
  }

  for (let i = 0; i + 1 < path.length; i++) {
    if (!path[i].checkIssued(path[i + 1]) || !path[i].verify(path[i + 1].publicKey)) {
      throw new DigitalIdVerificationError('issuer_certificate_invalid', 'the certificate chain does not link');
    }
  }
  const last = path[path.length - 1];
  if (last !== anchor && last.fingerprint256 !== anchor.fingerprint256 && !last.verify(anchor.publicKey)) {
    throw new DigitalIdVerificationError('issuer_certificate_invalid', 'the trusted root did not sign the chain');
  }

  for (const certificate of [...path, anchor]) checkValidity(certificate, options.now);

  const signer = path[0];
  requireKeyUsage(signer, KeyUsageFlags.digitalSignature, 'the signer certificate may not sign documents');
  for (const ca of [...path.slice(1), anchor]) {
    if (ca === signer) continue;
    if (!ca.ca) throw new DigitalIdVerificationError('issuer_certificate_bad_key_usage', 'a CA in the chain is not a CA');
    requireKeyUsage(ca, KeyUsageFlags.keyCertSign, 'a CA in the chain may not sign certificates');
  }
  if (options.requiredSignerEku) {
    const eku = signer.keyUsage ?? [];
    if (!eku.includes(options.requiredSignerEku)) {
      throw new DigitalIdVerificationError('issuer_certificate_bad_key_usage', 'the signer is not a document signer');
    }
  }
  return { signer, anchor, path };
}

function parse(der: Uint8Array): X509Certificate {
  try {
    return new X509Certificate(Buffer.from(der));
  } catch {
    throw new DigitalIdVerificationError('issuer_certificate_invalid', 'a certificate could not be parsed');
  }
}

function checkValidity(certificate: X509Certificate, now: Date): void {
  if (now < new Date(certificate.validFrom)) {
    throw new DigitalIdVerificationError('issuer_certificate_not_yet_valid', `"${oneLine(certificate.subject)}" is not yet valid`);
  }
  if (now > new Date(certificate.validTo)) {
    throw new DigitalIdVerificationError('issuer_certificate_expired', `"${oneLine(certificate.subject)}" has expired`);
  }
}

/** A certificate without a keyUsage extension is unrestricted (RFC 5280 4.2.1.3). */
function requireKeyUsage(certificate: X509Certificate, flag: KeyUsageFlags, detail: string): void {
  const parsed = AsnConvert.parse(certificate.raw, Certificate);
  const extension = parsed.tbsCertificate.extensions?.find((e) => e.extnID === id_ce_keyUsage);
  if (!extension) return;
  const usage = AsnConvert.parse(extension.extnValue, KeyUsage);
  if ((usage.toNumber() & flag) === 0) throw new DigitalIdVerificationError('issuer_certificate_bad_key_usage', detail);
}

/** node:crypto names are multi-line ("C=US\nCN=..."); reasons are one line. */
export function oneLine(name: string): string {
  return name.split('\n').join(', ');
}

/** The common name, else the organisation, else the whole subject: what a reviewer calls the issuer. */
export function issuerDisplayName(certificate: X509Certificate): string {
  const parts = certificate.subject.split('\n');
  const pick = (key: string) => parts.find((p) => p.startsWith(`${key}=`))?.slice(key.length + 1);
  return pick('O') ?? pick('CN') ?? oneLine(certificate.subject);
}
