import { CommandApdu, ResponseApdu, SW_OK } from './apdu';
import { concat, constantTimeEqual, xor } from './bytes';
import { retailMac, tdesDecrypt, tdesEncrypt } from './des';
import { smFailure, unsupportedChip, wrongMrzKey } from './errors';
import { deriveKey, ENC, MAC } from './kdf';
import { bacKeySeed, MrzKey } from './mrz-key';
import { SecureMessaging, tdesCipher } from './secure-messaging';

/** ICAO 9303-11 4.3 Basic Access Control: mutual authentication with keys from the MRZ, then 3DES secure messaging. */

export type BacKeys = { seed: Uint8Array; kEnc: Uint8Array; kMac: Uint8Array };

export function bacKeys(mrz: MrzKey): BacKeys {
  const seed = bacKeySeed(mrz);
  return { seed, kEnc: deriveKey(seed, ENC, '3DES'), kMac: deriveKey(seed, MAC, '3DES') };
}

/** E.IFD || M.IFD: the EXTERNAL AUTHENTICATE data for the chip's challenge. */
export function externalAuthenticateData(keys: BacKeys, rndIc: Uint8Array, rndIfd: Uint8Array, kIfd: Uint8Array): Uint8Array {
  const eIfd = tdesEncrypt(keys.kEnc, concat(rndIfd, rndIc, kIfd));
  return concat(eIfd, retailMac(keys.kMac, eIfd));
}

export type SessionKeys = { ksEnc: Uint8Array; ksMac: Uint8Array; ssc: Uint8Array; kIc: Uint8Array };

/** Checks the chip's answer (its MAC, then that it returned our RND.IFD) and derives the session keys and SSC. */
export function sessionKeysFromResponse(keys: BacKeys, response: Uint8Array, rndIc: Uint8Array, rndIfd: Uint8Array, kIfd: Uint8Array): SessionKeys {
  if (response.length !== 40) throw smFailure(`EXTERNAL AUTHENTICATE answered ${response.length} bytes, not 40`);
  const eIc = response.subarray(0, 32);
  if (!constantTimeEqual(retailMac(keys.kMac, eIc), response.subarray(32))) throw smFailure('the chip\'s authentication MAC does not verify');
  const r = tdesDecrypt(keys.kEnc, eIc);
  if (!constantTimeEqual(r.subarray(0, 8), rndIc) || !constantTimeEqual(r.subarray(8, 16), rndIfd)) throw smFailure('the chip did not return our challenge');
  const kIc = r.subarray(16, 32);
  const seed = xor(kIfd, kIc);
  return { ksEnc: deriveKey(seed, ENC, '3DES'), ksMac: deriveKey(seed, MAC, '3DES'), ssc: concat(rndIc.subarray(4, 8), rndIfd.subarray(4, 8)), kIc };
}

export type Send = (command: CommandApdu) => Promise<ResponseApdu>;

/** Runs BAC over `send` (plain APDUs) and returns the secure-messaging session it establishes. */
export async function performBac(send: Send, mrz: MrzKey, random: (n: number) => Uint8Array): Promise<SecureMessaging> {
  const keys = bacKeys(mrz);
  const challenge = await send({ cla: 0x00, ins: 0x84, p1: 0, p2: 0, le: 8 });
  if (challenge.sw !== SW_OK || challenge.data.length !== 8) throw unsupportedChip('GET CHALLENGE failed', challenge.sw);
  const rndIc = challenge.data;
  const rndIfd = random(8);
  const kIfd = random(16);
  const answer = await send({ cla: 0x00, ins: 0x82, p1: 0, p2: 0, data: externalAuthenticateData(keys, rndIc, rndIfd, kIfd), le: 40 });
  // 6300 (authentication failed) and 6982 (security status not satisfied) are what chips answer to a wrong MRZ key.
  if (answer.sw === 0x6300 || answer.sw === 0x6982 || (answer.sw & 0xfff0) === 0x63c0) throw wrongMrzKey(answer.sw);
  if (answer.sw !== SW_OK) throw unsupportedChip('EXTERNAL AUTHENTICATE failed', answer.sw);
  const session = sessionKeysFromResponse(keys, answer.data, rndIc, rndIfd, kIfd);
  return new SecureMessaging(tdesCipher(session.ksEnc, session.ksMac), session.ssc);
}
