import { createHash, type JsonWebKey } from 'node:crypto';
import { cborDecode, cborEncode, DeviceRequest } from '@animo-id/mdoc';
import { Aes128Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import { ISO_MDOC_PROTOCOL } from './dc-api-protocol';
import { requestedCredentialsForTier } from './requested-claims';

/**
 * ISO/IEC TS 18013-7 Annex C: an mdoc asked for through the W3C Digital Credentials API without
 * OpenID4VP (protocol `org-iso-mdoc`, the one Safari and Apple Wallet speak). The page passes an ISO
 * 18013-5 `DeviceRequest` and an `EncryptionInfo` (a nonce and the request's P-256 public key); the
 * wallet answers with its `DeviceResponse` sealed by HPKE to that key. The SessionTranscript the
 * device signs binds the answer to this EncryptionInfo (so to this request's key and nonce) and to the
 * page's origin:
 *
 *   SessionTranscript = [null, null, ["dcapi", SHA-256(CBOR([Base64EncryptionInfo, origin]))]]
 *
 * HPKE is mode base with DHKEM(P-256, HKDF-SHA256), HKDF-SHA256 and AES-128-GCM, its `info` the CBOR of
 * that SessionTranscript and no additional data (docs/digital-ids.md, "Annex C").
 */
export { ISO_MDOC_PROTOCOL };

export interface IsoMdocDcApiRequest {
  readonly protocol: typeof ISO_MDOC_PROTOCOL;
  /** Both base64url (no padding) CBOR, as Annex C puts them in the request's `data`. */
  readonly data: { deviceRequest: string; encryptionInfo: string };
}

/** The mdocs of the tier's DCQL query (D24's elements) as a DeviceRequest; the SD-JWT VC has no place here. */
export function isoMdocDeviceRequest(tier: number): Uint8Array {
  const docRequests = requestedCredentialsForTier(tier)
    .filter((credential) => credential.format === 'mso_mdoc')
    .map((credential) => ({
      itemsRequestData: {
        docType: credential.credentialType,
        nameSpaces: new Map([[credential.namespace!, new Map(credential.elements.map((element) => [element, true]))]]),
      },
    }));
  return DeviceRequest.from('1.0', docRequests).encode();
}

/** `EncryptionInfo = ["dcapi", { nonce, recipientPublicKey: COSE_Key }]`, base64url: the string the transcript hashes. */
export function isoMdocEncryptionInfo(nonce: Uint8Array, recipient: Pick<JsonWebKey, 'x' | 'y'>): string {
  const coseKey = new Map<number, number | Uint8Array>([
    [1, 2], // kty EC2
    [-1, 1], // crv P-256
    [-2, Buffer.from(String(recipient.x), 'base64url')],
    [-3, Buffer.from(String(recipient.y), 'base64url')],
  ]);
  return Buffer.from(cborEncode(['dcapi', new Map<string, unknown>([['nonce', nonce], ['recipientPublicKey', coseKey]])])).toString('base64url');
}

export function isoMdocDcApiRequest(input: { tier: number; nonce: Uint8Array; recipient: Pick<JsonWebKey, 'x' | 'y'> }): IsoMdocDcApiRequest {
  return {
    protocol: ISO_MDOC_PROTOCOL,
    data: {
      deviceRequest: Buffer.from(isoMdocDeviceRequest(input.tier)).toString('base64url'),
      encryptionInfo: isoMdocEncryptionInfo(input.nonce, input.recipient),
    },
  };
}

/** The SessionTranscript array (CBOR): HPKE's `info`. The device signs it wrapped as SessionTranscriptBytes (`wrapSessionTranscript`). */
export function isoMdocSessionTranscript(encryptionInfo: string, origin: string): Uint8Array {
  const dcapiInfoHash = new Uint8Array(createHash('sha256').update(cborEncode([encryptionInfo, origin])).digest());
  return cborEncode([null, null, ['dcapi', dcapiInfoHash]]);
}

export class IsoMdocResponseError extends Error {}

const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes128Gcm() });

/**
 * Opens the wallet's `EncryptedResponse = ["dcapi", { enc, cipherText }]` (base64url CBOR, the `response`
 * of the answer's data) with the request's private key: the DeviceResponse CBOR. Anything that is not
 * such a response, or does not open under this key and transcript, is an IsoMdocResponseError.
 */
export async function openIsoMdocResponse(response: unknown, privateJwk: JsonWebKey, sessionTranscript: Uint8Array): Promise<Uint8Array> {
  if (typeof response !== 'string' || !/^[A-Za-z0-9_-]+={0,2}$/.test(response)) throw new IsoMdocResponseError('response is not base64url');
  let decoded: unknown;
  try {
    decoded = cborDecode(Buffer.from(response, 'base64url'));
  } catch {
    throw new IsoMdocResponseError('response is not CBOR');
  }
  const params = Array.isArray(decoded) && decoded.length === 2 && decoded[0] === 'dcapi' && decoded[1] instanceof Map ? (decoded[1] as Map<string, unknown>) : null;
  const enc = params?.get('enc');
  const cipherText = params?.get('cipherText');
  if (!(enc instanceof Uint8Array) || !(cipherText instanceof Uint8Array)) throw new IsoMdocResponseError('response is not an Annex C EncryptedResponse');
  try {
    const recipientKey = await suite.kem.importKey('jwk', { ...privateJwk, key_ops: undefined } as JsonWebKey, false);
    const plaintext = await suite.open({ recipientKey, enc: toArrayBuffer(enc), info: toArrayBuffer(sessionTranscript) }, toArrayBuffer(cipherText));
    return new Uint8Array(plaintext);
  } catch {
    throw new IsoMdocResponseError('response does not decrypt under this request');
  }
}

function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}
