import { createHash, KeyObject, X509Certificate } from 'node:crypto';
import { Oid } from './chip.oids';
import { children, decodeOid, decodeTime, DerNode, expectUniversal, isContext, readWhole, Tag } from './der.reader';
import { normaliseInteger } from './signed-data.parser';

/** An X.509 certificate with the raw slices Passive Authentication matches on. */
export interface ParsedCertificate {
  readonly der: Buffer;
  /** DER of the issuer and subject Names, exactly as encoded in the certificate. */
  readonly issuerDer: Buffer;
  readonly subjectDer: Buffer;
  readonly issuer: string;
  readonly subject: string;
  readonly serialNumber: Buffer;
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly subjectKeyIdentifier: Buffer | null;
  readonly authorityKeyIdentifier: Buffer | null;
  readonly fingerprintSha256: string;
  readonly x509: X509Certificate;
  readonly publicKey: KeyObject;
}

/** Throws (DerError or a node:crypto error) when the bytes are not a certificate. */
export function parseCertificate(der: Buffer): ParsedCertificate {
  const certificate = children(expectUniversal(readWhole(der), Tag.SEQUENCE, 'Certificate'));
  const tbs = children(expectUniversal(certificate[0], Tag.SEQUENCE, 'TBSCertificate'));
  let index = tbs[0] && isContext(tbs[0], 0) ? 1 : 0;
  const serialNumber = normaliseInteger(expectUniversal(tbs[index++], Tag.INTEGER, 'serialNumber').value);
  index++; // signature algorithm, repeated outside the TBS
  const issuerDer = expectUniversal(tbs[index++], Tag.SEQUENCE, 'issuer').raw;
  const validity = children(expectUniversal(tbs[index++], Tag.SEQUENCE, 'validity'));
  const subjectDer = expectUniversal(tbs[index++], Tag.SEQUENCE, 'subject').raw;
  index++; // subjectPublicKeyInfo: node:crypto loads it
  let subjectKeyIdentifier: Buffer | null = null;
  let authorityKeyIdentifier: Buffer | null = null;
  for (const node of tbs.slice(index)) {
    if (!isContext(node, 3)) continue;
    for (const extension of children(children(node)[0])) {
      const parts = children(extension);
      const id = decodeOid(parts[0]);
      const valueNode = parts[parts.length - 1];
      if (id === Oid.subjectKeyIdentifier) {
        subjectKeyIdentifier = Buffer.from(expectUniversal(readWhole(valueNode.value), Tag.OCTET_STRING, 'SKI').value);
      } else if (id === Oid.authorityKeyIdentifier) {
        const keyId = children(readWhole(valueNode.value)).find((n: DerNode) => isContext(n, 0));
        if (keyId) authorityKeyIdentifier = Buffer.from(keyId.value);
      }
    }
  }

  const x509 = new X509Certificate(der);
  return {
    der: Buffer.from(der),
    issuerDer: Buffer.from(issuerDer),
    subjectDer: Buffer.from(subjectDer),
    issuer: x509.issuer,
    subject: x509.subject,
    serialNumber: Buffer.from(serialNumber),
    notBefore: decodeTime(validity[0]),
    notAfter: decodeTime(validity[1]),
    subjectKeyIdentifier,
    authorityKeyIdentifier,
    fingerprintSha256: createHash('sha256').update(der).digest('hex'),
    x509,
    publicKey: x509.publicKey,
  };
}

export function isValidAt(certificate: Pick<ParsedCertificate, 'notBefore' | 'notAfter'>, at: Date): boolean {
  return certificate.notBefore.getTime() <= at.getTime() && at.getTime() <= certificate.notAfter.getTime();
}

/** True when `issuer`'s key verifies `child`'s signature; never throws. */
export function isSignedBy(child: ParsedCertificate, issuer: ParsedCertificate): boolean {
  try {
    return child.x509.verify(issuer.publicKey);
  } catch {
    return false;
  }
}
