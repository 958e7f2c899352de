import { AlgorithmIdentifier, parseAlgorithmIdentifier } from './algorithm-identifier.parser';
import { ChipInputError } from './chip.errors';
import { HASH_BY_OID, HashName, LDS_CONTENT_TYPES } from './chip.oids';
import { children, decodeSmallInteger, DerError, expectUniversal, isUniversal, readNode, readWhole, Tag } from './der.reader';
import { parseSignedData, SignedData, SignerInfo } from './signed-data.parser';

export interface LdsSecurityObject {
  /** 0 for LDS 1.7, 1 for LDS 1.8 (which adds ldsVersionInfo). */
  readonly version: number;
  readonly hashAlgorithm: AlgorithmIdentifier;
  /** Null when the hash algorithm is not one node:crypto can compute. */
  readonly hashName: HashName | null;
  readonly dataGroupHashes: ReadonlyMap<number, Buffer>;
  readonly ldsVersion?: string;
  readonly unicodeVersion?: string;
}

export interface SecurityObjectDocument {
  readonly signedData: SignedData;
  /** ICAO 9303-10 requires exactly one SignerInfo; the first one is used. */
  readonly signerInfo: SignerInfo;
  readonly lds: LdsSecurityObject;
}

const EF_SOD_TAG = 23; // application 23, constructed: the 0x77 byte that wraps EF.SOD

/** Parses EF.SOD as read from the chip. Any structural fault is a `malformed_sod` ChipInputError. */
export function parseSod(sod: Buffer): SecurityObjectDocument {
  try {
    const signedData = parseSignedData(unwrapEfSod(sod));
    if (!LDS_CONTENT_TYPES.has(signedData.eContentType)) {
      throw new DerError(`eContentType ${signedData.eContentType} is not an LDS security object`);
    }
    return { signedData, signerInfo: signedData.signerInfos[0], lds: parseLdsSecurityObject(signedData.eContent) };
  } catch (error) {
    if (error instanceof ChipInputError) throw error;
    if (error instanceof DerError || error instanceof RangeError || error instanceof TypeError) {
      throw new ChipInputError('malformed_sod', `EF.SOD could not be parsed: ${error.message}`, 'sod');
    }
    throw error;
  }
}

function unwrapEfSod(sod: Buffer): Buffer {
  if (sod.length === 0) throw new DerError('empty EF.SOD');
  // Some SDKs send the bare ContentInfo without the 0x77 wrapper; accept it.
  if (sod[0] === 0x30) return sod;
  const wrapper = readNode(sod, 0);
  if (wrapper.tagClass !== 1 || wrapper.tagNumber !== EF_SOD_TAG || !wrapper.constructed) {
    throw new DerError('EF.SOD does not start with tag 0x77');
  }
  // Readers that fetch whole file sizes may append zero padding; anything else is suspicious.
  if (sod.subarray(wrapper.raw.length).some((b) => b !== 0)) throw new DerError('trailing data after EF.SOD');
  return wrapper.value;
}

function parseLdsSecurityObject(eContent: Buffer): LdsSecurityObject {
  const fields = children(expectUniversal(readWhole(eContent), Tag.SEQUENCE, 'LDSSecurityObject'));
  const version = decodeSmallInteger(fields[0]);
  const hashAlgorithm = parseAlgorithmIdentifier(fields[1]);
  const dataGroupHashes = new Map<number, Buffer>();
  for (const entry of children(expectUniversal(fields[2], Tag.SEQUENCE, 'dataGroupHashValues'))) {
    const [numberNode, hashNode] = children(expectUniversal(entry, Tag.SEQUENCE, 'DataGroupHash'));
    const number = decodeSmallInteger(numberNode);
    if (number < 1 || number > 16) throw new DerError(`data group number ${number} outside 1-16`);
    if (dataGroupHashes.has(number)) throw new DerError(`data group ${number} listed twice`);
    dataGroupHashes.set(number, Buffer.from(expectUniversal(hashNode, Tag.OCTET_STRING, 'dataGroupHashValue').value));
  }
  let ldsVersion: string | undefined;
  let unicodeVersion: string | undefined;
  if (fields[3] && isUniversal(fields[3], Tag.SEQUENCE)) {
    const info = children(fields[3]);
    ldsVersion = info[0]?.value.toString('latin1');
    unicodeVersion = info[1]?.value.toString('latin1');
  }
  return { version, hashAlgorithm, hashName: HASH_BY_OID[hashAlgorithm.oid] ?? null, dataGroupHashes, ldsVersion, unicodeVersion };
}
