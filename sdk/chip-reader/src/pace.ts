import { p256 } from '@noble/curves/p256';
import { bytesToNumberBE } from '@noble/curves/abstract/utils';
import { sha1 } from '@noble/hashes/sha1';
import { aesCbcDecrypt, aesCmac } from './aes';
import { CommandApdu, ResponseApdu, SW_OK } from './apdu';
import type { Send } from './bac';
import { concat, constantTimeEqual } from './bytes';
import { smFailure, unsupportedChip, wrongMrzKey } from './errors';
import { deriveKey, ENC, MAC, PACE_PASSWORD } from './kdf';
import { MrzKey, mrzInformation } from './mrz-key';
import { aesCipher, SecureMessaging } from './secure-messaging';
import { encodeTlv, readTlvHeader, tlvChildren } from './tlv';

/**
 * PACE (ICAO 9303-11 4.4) with the generic mapping over ECDH and AES-128 secure messaging, on NIST
 * P-256 (standardized domain parameter 12), the one PACE suite this reader runs; a chip offering only
 * others is read with BAC, which ICAO still requires chips to support.
 */

/** id-PACE-ECDH-GM-AES-CBC-CMAC-128: 0.4.0.127.0.7.2.2.4.2.2 */
export const PACE_ECDH_GM_AES_128 = Uint8Array.of(0x04, 0x00, 0x7f, 0x00, 0x07, 0x02, 0x02, 0x04, 0x02, 0x02);
export const P256_PARAMETER_ID = 12;

export type PaceInfo = { oid: Uint8Array; version: number; parameterId?: number };

/** The PACEInfo entries of EF.CardAccess (a SET OF SecurityInfo). */
export function paceInfos(cardAccess: Uint8Array): PaceInfo[] {
  const top = readTlvHeader(cardAccess);
  if (!top || top.tag !== 0x31) return [];
  const out: PaceInfo[] = [];
  for (const info of tlvChildren(cardAccess.subarray(top.headerLength, top.headerLength + top.length))) {
    if (info.tag !== 0x30) continue;
    const fields = [...tlvChildren(info.value)];
    const oid = fields[0]?.tag === 0x06 ? fields[0].value : undefined;
    // id-PACE arc 0.4.0.127.0.7.2.2.4
    if (!oid || oid.length !== 10 || !constantTimeEqual(oid.subarray(0, 8), PACE_ECDH_GM_AES_128.subarray(0, 8))) continue;
    const int = (v?: Uint8Array) => (v ? v.reduce((n, b) => n * 256 + b, 0) : undefined);
    out.push({ oid, version: int(fields[1]?.tag === 0x02 ? fields[1].value : undefined) ?? 0, parameterId: int(fields[2]?.tag === 0x02 ? fields[2].value : undefined) });
  }
  return out;
}

export const supportedPace = (infos: PaceInfo[]): PaceInfo | undefined =>
  infos.find((i) => i.version === 2 && i.parameterId === P256_PARAMETER_ID && constantTimeEqual(i.oid, PACE_ECDH_GM_AES_128));

/** K-pi: PACE's password key from the MRZ, the whole SHA-1 of the MRZ information (not BAC's 16 bytes). */
export function pacePasswordKey(mrz: MrzKey): Uint8Array {
  const info = mrzInformation(mrz);
  return deriveKey(sha1(Uint8Array.from(info, (c) => c.charCodeAt(0))), PACE_PASSWORD, 'AES-128');
}

/** The public key data object the authentication tokens are MACs of (ICAO 9303-11 4.4.3.4). */
export const publicKeyObject = (oid: Uint8Array, point: Uint8Array): Uint8Array => encodeTlv(0x7f49, concat(encodeTlv(0x06, oid), encodeTlv(0x86, point)));
export const authenticationToken = (ksMac: Uint8Array, oid: Uint8Array, point: Uint8Array): Uint8Array => aesCmac(ksMac, publicKeyObject(oid, point)).subarray(0, 8);

/** One GENERAL AUTHENTICATE step: 7C-wrapped data out, the 7C-wrapped answer's object `expect` back. */
async function generalAuthenticate(send: Send, chained: boolean, tag: number | undefined, value: Uint8Array, expect: number): Promise<Uint8Array> {
  const data = encodeTlv(0x7c, tag === undefined ? new Uint8Array(0) : encodeTlv(tag, value));
  const command: CommandApdu = { cla: chained ? 0x10 : 0x00, ins: 0x86, p1: 0, p2: 0, data, le: 256 };
  const r: ResponseApdu = await send(command);
  if (r.sw === 0x6300 || (r.sw & 0xfff0) === 0x63c0 || r.sw === 0x6982) throw wrongMrzKey(r.sw);
  if (r.sw !== SW_OK) throw unsupportedChip('GENERAL AUTHENTICATE failed', r.sw);
  const outer = readTlvHeader(r.data);
  if (!outer || outer.tag !== 0x7c) throw smFailure('GENERAL AUTHENTICATE answer is not a 7C template');
  for (const { tag: t, value: v } of tlvChildren(r.data.subarray(outer.headerLength, outer.headerLength + outer.length))) if (t === expect) return v;
  throw smFailure(`GENERAL AUTHENTICATE answer lacks tag ${expect.toString(16)}`);
}

const scalar = (random: (n: number) => Uint8Array): bigint => {
  // A private key in [1, n-1], from 48 random bytes reduced (bias negligible, as FIPS 186 B.4.1).
  return (bytesToNumberBE(random(48)) % (p256.CURVE.n - 1n)) + 1n;
};

/** Runs PACE over `send` (plain APDUs) and returns the AES secure-messaging session it establishes. */
export async function performPace(send: Send, mrz: MrzKey, info: PaceInfo, random: (n: number) => Uint8Array): Promise<SecureMessaging> {
  const oid = info.oid;
  const setAt = concat(encodeTlv(0x80, oid), encodeTlv(0x83, Uint8Array.of(0x01)), encodeTlv(0x84, Uint8Array.of(info.parameterId ?? P256_PARAMETER_ID)));
  const mse = await send({ cla: 0x00, ins: 0x22, p1: 0xc1, p2: 0xa4, data: setAt });
  if (mse.sw !== SW_OK) throw unsupportedChip('MSE:Set AT for PACE failed', mse.sw);

  const encryptedNonce = await generalAuthenticate(send, true, undefined, new Uint8Array(0), 0x80);
  if (encryptedNonce.length !== 16) throw smFailure('the PACE nonce is not one AES block');
  const nonce = bytesToNumberBE(aesCbcDecrypt(pacePasswordKey(mrz), new Uint8Array(16), encryptedNonce));

  const G = p256.ProjectivePoint.BASE;
  const mapKey = scalar(random);
  const chipMapPoint = p256.ProjectivePoint.fromHex(await generalAuthenticate(send, true, 0x81, G.multiply(mapKey).toRawBytes(false), 0x82));
  const mappedG = G.multiply(nonce).add(chipMapPoint.multiply(mapKey));

  const ephemeral = scalar(random);
  const ourPoint = mappedG.multiply(ephemeral).toRawBytes(false);
  const chipPointBytes = await generalAuthenticate(send, true, 0x83, ourPoint, 0x84);
  const chipPoint = p256.ProjectivePoint.fromHex(chipPointBytes);
  if (chipPoint.equals(chipMapPoint)) throw smFailure('the chip reused its mapping key');
  const shared = chipPoint.multiply(ephemeral).toRawBytes(false).subarray(1, 33);
  const ksEnc = deriveKey(shared, ENC, 'AES-128');
  const ksMac = deriveKey(shared, MAC, 'AES-128');

  const chipToken = await generalAuthenticate(send, false, 0x85, authenticationToken(ksMac, oid, chipPointBytes), 0x86);
  if (!constantTimeEqual(chipToken, authenticationToken(ksMac, oid, ourPoint))) throw smFailure("the chip's PACE token does not verify");
  return new SecureMessaging(aesCipher(ksEnc, ksMac), new Uint8Array(16));
}
