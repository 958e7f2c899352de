import { AlgorithmIdentifier, parseAlgorithmIdentifier } from './algorithm-identifier.parser';
import { Oid } from './chip.oids';
import {
  children,
  decodeOid,
  decodeSmallInteger,
  decodeTime,
  DerError,
  DerNode,
  expectUniversal,
  isContext,
  isUniversal,
  octetStringValue,
  readWhole,
  Tag,
} from './der.reader';

export type SignerIdentifier =
  | { readonly kind: 'issuerAndSerialNumber'; readonly issuer: Buffer; readonly serialNumber: Buffer }
  | { readonly kind: 'subjectKeyIdentifier'; readonly keyIdentifier: Buffer };

export interface SignedAttribute {
  readonly type: string;
  readonly values: DerNode[];
}

export interface SignerInfo {
  readonly sid: SignerIdentifier;
  readonly digestAlgorithm: AlgorithmIdentifier;
  /** The signed attributes re-tagged as SET OF (0x31): the exact bytes the signature covers. */
  readonly signedAttrsForSignature: Buffer | null;
  readonly signedAttrs: SignedAttribute[];
  readonly signatureAlgorithm: AlgorithmIdentifier;
  readonly signature: Buffer;
}

/** A CMS SignedData (RFC 5652) with the byte slices needed to check it. */
export interface SignedData {
  readonly version: number;
  readonly eContentType: string;
  readonly eContent: Buffer;
  /** DER of each embedded certificate, exactly as sent. */
  readonly certificates: Buffer[];
  readonly signerInfos: SignerInfo[];
}

/** Parses ContentInfo { id-signedData, [0] SignedData }. Throws DerError on any structural fault. */
export function parseSignedData(contentInfoDer: Buffer): SignedData {
  const contentInfo = children(expectUniversal(readWhole(contentInfoDer), Tag.SEQUENCE, 'ContentInfo'));
  if (decodeOid(contentInfo[0]) !== Oid.signedData) throw new DerError('ContentInfo is not id-signedData');
  const wrapper = contentInfo[1];
  if (!wrapper || !isContext(wrapper, 0)) throw new DerError('missing SignedData content');
  const [signedDataNode] = children(wrapper);
  const fields = children(expectUniversal(signedDataNode, Tag.SEQUENCE, 'SignedData'));

  let index = 0;
  const version = decodeSmallInteger(fields[index++]);
  expectUniversal(fields[index++], Tag.SET, 'digestAlgorithms');
  const encap = children(expectUniversal(fields[index++], Tag.SEQUENCE, 'EncapsulatedContentInfo'));
  const eContentType = decodeOid(encap[0]);
  if (!encap[1] || !isContext(encap[1], 0)) throw new DerError('SignedData has no eContent');
  const eContent = octetStringValue(children(encap[1])[0]);

  let certificates: Buffer[] = [];
  if (fields[index] && isContext(fields[index], 0)) {
    certificates = children(fields[index++]).filter((n) => isUniversal(n, Tag.SEQUENCE)).map((n) => Buffer.from(n.raw));
  }
  if (fields[index] && isContext(fields[index], 1)) index++; // CRLs are not used in Passive Authentication
  const signerInfos = children(expectUniversal(fields[index], Tag.SET, 'signerInfos')).map(parseSignerInfo);
  if (signerInfos.length === 0) throw new DerError('SignedData has no SignerInfo');

  return { version, eContentType, eContent, certificates, signerInfos };
}

function parseSignerInfo(node: DerNode): SignerInfo {
  const fields = children(expectUniversal(node, Tag.SEQUENCE, 'SignerInfo'));
  let index = 1; // version
  const sidNode = fields[index++];
  let sid: SignerIdentifier;
  if (sidNode && isContext(sidNode, 0)) {
    sid = { kind: 'subjectKeyIdentifier', keyIdentifier: sidNode.constructed ? octetStringValue(children(sidNode)[0]) : sidNode.value };
  } else {
    const parts = children(expectUniversal(sidNode, Tag.SEQUENCE, 'IssuerAndSerialNumber'));
    sid = {
      kind: 'issuerAndSerialNumber',
      issuer: expectUniversal(parts[0], Tag.SEQUENCE, 'issuer Name').raw,
      serialNumber: normaliseInteger(expectUniversal(parts[1], Tag.INTEGER, 'serialNumber').value),
    };
  }
  const digestAlgorithm = parseAlgorithmIdentifier(fields[index++]);

  let signedAttrsForSignature: Buffer | null = null;
  let signedAttrs: SignedAttribute[] = [];
  if (fields[index] && isContext(fields[index], 0)) {
    const attrsNode = fields[index++];
    // RFC 5652 5.4: the signature covers the DER of the SET OF, not the [0] IMPLICIT encoding.
    signedAttrsForSignature = Buffer.from(attrsNode.raw);
    signedAttrsForSignature[0] = 0x31;
    signedAttrs = children(attrsNode).map((attr) => {
      const [type, values] = children(expectUniversal(attr, Tag.SEQUENCE, 'Attribute'));
      return { type: decodeOid(type), values: children(expectUniversal(values, Tag.SET, 'AttributeValues')) };
    });
  }
  const signatureAlgorithm = parseAlgorithmIdentifier(fields[index++]);
  const signature = octetStringValue(expectUniversal(fields[index++], Tag.OCTET_STRING, 'signature'));
  return { sid, digestAlgorithm, signedAttrsForSignature, signedAttrs, signatureAlgorithm, signature };
}

/** Drops a leading sign byte so serial numbers compare by value. */
export function normaliseInteger(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  return bytes.subarray(start);
}

export function signedAttribute(info: SignerInfo, type: string): DerNode | undefined {
  return info.signedAttrs.find((a) => a.type === type)?.values[0];
}

export function signingTimeOf(info: SignerInfo): Date | undefined {
  const node = signedAttribute(info, Oid.signingTimeAttr);
  if (!node) return undefined;
  try {
    return decodeTime(node);
  } catch {
    // A malformed optional attribute must not sink the SOD; validity falls back to "now".
    return undefined;
  }
}
