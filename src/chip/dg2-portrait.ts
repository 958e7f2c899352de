import { children, DerError, readNode, type DerNode } from './der.reader';

/** The facial image DG2 carries, as its biometric data block stores it. */
export type ChipPortrait = { bytes: Buffer; format: 'jpeg' | 'jpeg2000' };

/**
 * The first facial image of DG2 (ICAO 9303-10: tag 0x75, the biometric information group template
 * 0x7F61, a template 0x7F60 whose data block 0x5F2E / 0x7F2E is an ISO/IEC 19794-5:2005 facial
 * record). Returns null when DG2 holds no such record (e.g. the ASN.1 format of ISO/IEC 39794-5,
 * which this reader does not parse); the caller says the portrait could not be read.
 */
export function portraitFromDg2(dg2: Buffer): ChipPortrait | null {
  try {
    const outer = readNode(dg2, 0);
    if (outer.tagClass !== 1 || outer.tagNumber !== 0x15) return null; // 0x75
    const block = findBiometricDataBlock(outer);
    return block ? imageOfFacialRecord(block) : null;
  } catch (error) {
    if (error instanceof DerError) return null;
    throw error;
  }
}

function findBiometricDataBlock(node: DerNode, depth = 0): Buffer | null {
  if (depth > 4 || !node.constructed) return null;
  for (const child of children(node)) {
    if (child.tagClass === 1 && child.tagNumber === 0x2e) return child.value; // 0x5F2E or 0x7F2E
    const found = findBiometricDataBlock(child, depth + 1);
    if (found) return found;
  }
  return null;
}

/** ISO/IEC 19794-5:2005: record header (14 bytes), facial information (20), feature points (8 each), image information (12), image. */
function imageOfFacialRecord(record: Buffer): ChipPortrait | null {
  if (record.length < 14 + 20 + 12 || record.toString('latin1', 0, 4) !== 'FAC\0') return null;
  const info = 14;
  const blockLength = record.readUInt32BE(info);
  const featurePoints = record.readUInt16BE(info + 4);
  const imageInfo = info + 20 + 8 * featurePoints;
  const imageStart = imageInfo + 12;
  const imageEnd = Math.min(record.length, info + blockLength);
  if (imageStart >= imageEnd) return null;
  const dataType = record[imageInfo + 1]; // 0: JPEG, 1: JPEG 2000
  const bytes = record.subarray(imageStart, imageEnd);
  if (dataType === 0 && bytes[0] === 0xff && bytes[1] === 0xd8) return { bytes, format: 'jpeg' };
  if (dataType === 1) return { bytes, format: 'jpeg2000' };
  return null;
}
