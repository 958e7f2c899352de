/** OIDs from ICAO Doc 9303 parts 10-12, RFC 5652 (CMS) and RFC 4055/5758 (signature algorithms). */
export const Oid = {
  signedData: '1.2.840.113549.1.7.2',
  data: '1.2.840.113549.1.7.1',
  ldsSecurityObject: '2.23.136.1.1.1',
  cscaMasterList: '2.23.136.1.1.2',
  contentTypeAttr: '1.2.840.113549.1.9.3',
  messageDigestAttr: '1.2.840.113549.1.9.4',
  signingTimeAttr: '1.2.840.113549.1.9.5',
  subjectKeyIdentifier: '2.5.29.14',
  authorityKeyIdentifier: '2.5.29.35',
  rsaEncryption: '1.2.840.113549.1.1.1',
  rsassaPss: '1.2.840.113549.1.1.10',
  mgf1: '1.2.840.113549.1.1.8',
  ecPublicKey: '1.2.840.10045.2.1',
} as const;

/**
 * eContentTypes accepted for an LDS security object. Besides the ICAO OID, real documents
 * carry legacy ones (BE/FR 1.3.27.1.1.1, Sdu NL 1.2.528.1.1006.1.20.1) and plain id-data (CN).
 */
export const LDS_CONTENT_TYPES: ReadonlySet<string> = new Set([
  Oid.ldsSecurityObject,
  '1.3.27.1.1.1',
  '1.2.528.1.1006.1.20.1',
  Oid.data,
]);

export type HashName = 'sha1' | 'sha224' | 'sha256' | 'sha384' | 'sha512';

export const HASH_BY_OID: Readonly<Record<string, HashName>> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.4': 'sha224',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};

export const RSA_PKCS1_SIGNATURE_HASH: Readonly<Record<string, HashName>> = {
  '1.2.840.113549.1.1.5': 'sha1',
  '1.2.840.113549.1.1.14': 'sha224',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
};

export const ECDSA_SIGNATURE_HASH: Readonly<Record<string, HashName>> = {
  '1.2.840.10045.4.1': 'sha1',
  '1.2.840.10045.4.3.1': 'sha224',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
};
