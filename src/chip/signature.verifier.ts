import { constants, KeyObject, verify } from 'node:crypto';
import { AlgorithmIdentifier, parseAlgorithmIdentifier } from './algorithm-identifier.parser';
import { ECDSA_SIGNATURE_HASH, HASH_BY_OID, HashName, Oid, RSA_PKCS1_SIGNATURE_HASH } from './chip.oids';
import { children, decodeSmallInteger, isContext } from './der.reader';

export type SignatureOutcome = 'valid' | 'invalid' | 'unsupported';

/** BSI TR-03111 ecdsa-plain-*: r||s instead of a DER SEQUENCE, used by some German issuers. */
const ECDSA_PLAIN_SIGNATURE_HASH: Readonly<Record<string, HashName>> = {
  '0.4.0.127.0.7.1.1.4.1.1': 'sha1',
  '0.4.0.127.0.7.1.1.4.1.2': 'sha224',
  '0.4.0.127.0.7.1.1.4.1.3': 'sha256',
  '0.4.0.127.0.7.1.1.4.1.4': 'sha384',
  '0.4.0.127.0.7.1.1.4.1.5': 'sha512',
};

interface VerifyPlan {
  readonly hash: HashName;
  readonly options: { padding?: number; saltLength?: number; dsaEncoding?: 'der' | 'ieee-p1363' };
}

/**
 * Verifies a CMS signature with node:crypto, which (unlike WebCrypto or pkijs) accepts brainpool
 * keys and EC keys with explicit domain parameters.
 *
 * @param digestAlgorithm SignerInfo.digestAlgorithm; gives the hash when the signature OID names
 *   only the key type (rsaEncryption, ecPublicKey), as AU, NZ and US SODs do.
 */
export function verifyCmsSignature(
  signatureAlgorithm: AlgorithmIdentifier,
  digestAlgorithm: AlgorithmIdentifier,
  data: Buffer,
  signature: Buffer,
  publicKey: KeyObject,
): SignatureOutcome {
  const plan = planFor(signatureAlgorithm, digestAlgorithm);
  if (!plan) return 'unsupported';
  try {
    return verify(plan.hash, data, { key: publicKey, ...plan.options }, signature) ? 'valid' : 'invalid';
  } catch {
    // Wrong key type for the algorithm, or a signature that is not even well-formed.
    return 'invalid';
  }
}

function planFor(signatureAlgorithm: AlgorithmIdentifier, digestAlgorithm: AlgorithmIdentifier): VerifyPlan | null {
  const oid = signatureAlgorithm.oid;
  const digestHash = HASH_BY_OID[digestAlgorithm.oid];
  if (oid === Oid.rsaEncryption) return digestHash ? { hash: digestHash, options: { padding: constants.RSA_PKCS1_PADDING } } : null;
  if (RSA_PKCS1_SIGNATURE_HASH[oid]) return { hash: RSA_PKCS1_SIGNATURE_HASH[oid], options: { padding: constants.RSA_PKCS1_PADDING } };
  if (oid === Oid.rsassaPss) return pssPlan(signatureAlgorithm);
  if (ECDSA_SIGNATURE_HASH[oid]) return { hash: ECDSA_SIGNATURE_HASH[oid], options: { dsaEncoding: 'der' } };
  if (oid === Oid.ecPublicKey) return digestHash ? { hash: digestHash, options: { dsaEncoding: 'der' } } : null;
  if (ECDSA_PLAIN_SIGNATURE_HASH[oid]) return { hash: ECDSA_PLAIN_SIGNATURE_HASH[oid], options: { dsaEncoding: 'ieee-p1363' } };
  return null;
}

/** RFC 4055 RSASSA-PSS-params, with its SHA-1 / MGF1-SHA-1 / salt 20 defaults. */
function pssPlan(signatureAlgorithm: AlgorithmIdentifier): VerifyPlan | null {
  try {
    return readPssParameters(signatureAlgorithm);
  } catch {
    return null; // malformed parameters cannot be honoured, so the algorithm is unsupported
  }
}

function readPssParameters(signatureAlgorithm: AlgorithmIdentifier): VerifyPlan | null {
  let hash: HashName | undefined = 'sha1';
  let mgfHash: HashName | undefined = 'sha1';
  let saltLength = 20;
  const params = signatureAlgorithm.parameters;
  if (params && params.constructed) {
    for (const field of children(params)) {
      const [inner] = children(field);
      if (isContext(field, 0)) hash = HASH_BY_OID[parseAlgorithmIdentifier(inner).oid];
      else if (isContext(field, 1)) {
        const mgf = parseAlgorithmIdentifier(inner);
        mgfHash = mgf.oid === Oid.mgf1 && mgf.parameters ? HASH_BY_OID[parseAlgorithmIdentifier(mgf.parameters).oid] : undefined;
      } else if (isContext(field, 2)) saltLength = decodeSmallInteger(inner);
      else if (isContext(field, 3) && decodeSmallInteger(inner) !== 1) return null;
    }
  }
  // node:crypto always uses MGF1 with the message hash; a different MGF1 hash cannot be verified.
  if (!hash || mgfHash !== hash || saltLength < 0) return null;
  return { hash, options: { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength } };
}
