import { verify, X509Certificate } from 'node:crypto';
import { cborDecode } from '@animo-id/mdoc';
import { DigitalIdVerificationError } from './digital-id.errors';
import { validateCertificateChain } from './x509-chain';

/**
 * A VICAL (Verified Issuer Certificate Authority List, ISO/IEC 18013-5 Annex C, as AAMVA's Digital Trust
 * Service publishes it): a COSE_Sign1 whose payload is a CBOR map with `certificateInfos`, each holding an
 * IACA certificate (DER) and the doctypes it issues. The VICAL signer's certificate travels in the
 * `x5chain` header and must chain to an anchor the operator gives (AAMVA's VICAL root); only then are the
 * listed IACAs read. @animo-id/mdoc decodes the COSE_Sign1 (CBOR tag 18) and builds its Sig_structure; the
 * signature is checked with node:crypto, as every other signature of this service.
 */

export interface VicalIaca {
  readonly certificate: X509Certificate;
  readonly docTypes: readonly string[];
  readonly issuingCountry: string | null;
}

export interface Vical {
  readonly provider: string;
  readonly issueId: number | null;
  readonly date: Date | null;
  readonly signer: X509Certificate;
  readonly iacas: readonly VicalIaca[];
}

export class VicalError extends Error {}

type Sign1Like = {
  readonly payload: Uint8Array;
  readonly x5chain?: Uint8Array[];
  getRawVerificationData(): { alg: string; signature: Uint8Array; data: Uint8Array };
};

const HASHES: Record<string, { hash: string; curve: string }> = {
  ES256: { hash: 'sha256', curve: 'prime256v1' },
  ES384: { hash: 'sha384', curve: 'secp384r1' },
  ES512: { hash: 'sha512', curve: 'secp521r1' },
};

/** Reads and verifies a VICAL against the anchors; throws VicalError naming what is wrong. */
export function readVical(bytes: Uint8Array, anchors: readonly X509Certificate[], now: Date): Vical {
  if (anchors.length === 0) throw new VicalError('no VICAL signer root was given');
  const sign1 = decodeSign1(bytes);
  const chain = sign1.x5chain;
  if (!chain?.length) throw new VicalError('the VICAL carries no signer certificate (x5chain)');
  let signer: X509Certificate;
  try {
    signer = validateCertificateChain({ chain, trustedRoots: anchors.map((a) => new Uint8Array(a.raw)), now }).signer;
  } catch (error) {
    if (error instanceof DigitalIdVerificationError) throw new VicalError(`the VICAL signer is not trusted: ${error.message}`);
    throw error;
  }
  let raw: { alg: string; signature: Uint8Array; data: Uint8Array };
  try {
    raw = sign1.getRawVerificationData();
  } catch {
    throw new VicalError('the VICAL names no supported signature algorithm');
  }
  const scheme = HASHES[raw.alg];
  if (!scheme || signer.publicKey.asymmetricKeyDetails?.namedCurve !== scheme.curve) throw new VicalError(`the VICAL's algorithm ${raw.alg} does not fit its signer's key`);
  if (!verify(scheme.hash, raw.data, { key: signer.publicKey, dsaEncoding: 'ieee-p1363' }, raw.signature)) {
    throw new VicalError('the VICAL signature does not verify');
  }
  return { ...readPayload(sign1.payload), signer };
}

function decodeSign1(bytes: Uint8Array): Sign1Like {
  const attempt = (b: Uint8Array): unknown => {
    try {
      return cborDecode(b);
    } catch {
      return undefined;
    }
  };
  let decoded = attempt(bytes);
  // An untagged COSE_Sign1 (a bare 4-array) reads as the tagged one: tag 18 is one leading byte (0xd2).
  if (Array.isArray(decoded) && decoded.length === 4) decoded = attempt(Buffer.concat([Buffer.from([0xd2]), bytes]));
  if (!decoded || typeof (decoded as Sign1Like).getRawVerificationData !== 'function' || !((decoded as Sign1Like).payload instanceof Uint8Array)) {
    throw new VicalError('the file is not a COSE_Sign1 (CBOR)');
  }
  return decoded as Sign1Like;
}

function readPayload(payload: Uint8Array): Omit<Vical, 'signer'> {
  let body: unknown;
  try {
    body = cborDecode(payload);
  } catch {
    throw new VicalError('the VICAL payload is not CBOR');
  }
  if (!(body instanceof Map)) throw new VicalError('the VICAL payload is not a map');
  const infos = body.get('certificateInfos');
  if (!Array.isArray(infos) || infos.length === 0) throw new VicalError('the VICAL lists no certificateInfos');
  const iacas = infos.map((info: unknown, i: number) => {
    if (!(info instanceof Map) || !(info.get('certificate') instanceof Uint8Array)) throw new VicalError(`certificateInfos[${i}] has no certificate`);
    let certificate: X509Certificate;
    try {
      certificate = new X509Certificate(info.get('certificate') as Uint8Array);
    } catch {
      throw new VicalError(`certificateInfos[${i}] is not an X.509 certificate`);
    }
    const docType = info.get('docType');
    const docTypes = Array.isArray(docType) ? docType.filter((d): d is string => typeof d === 'string') : typeof docType === 'string' ? [docType] : [];
    const country = info.get('issuingCountry');
    return { certificate, docTypes, issuingCountry: typeof country === 'string' ? country : null };
  });
  const provider = body.get('vicalProvider');
  const issueId = body.get('vicalIssueID');
  const date = body.get('date');
  return {
    provider: typeof provider === 'string' ? provider : 'unknown',
    issueId: typeof issueId === 'number' ? issueId : null,
    date: date instanceof Date ? date : typeof date === 'string' && !Number.isNaN(Date.parse(date)) ? new Date(date) : null,
    iacas,
  };
}
