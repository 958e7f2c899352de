import { createHash } from 'node:crypto';
import { cborEncode, DataItem } from '@animo-id/mdoc';

/**
 * The mdoc SessionTranscript an OpenID4VP 1.0 answer is bound to (OpenID4VP 1.0 Appendix B.2.6). The
 * device signs it inside DeviceAuthentication, so a response made for another verifier, nonce, origin
 * or response endpoint does not verify here. Returned as SessionTranscriptBytes (tag 24 around the CBOR).
 */
export type TranscriptChannel =
  /** Same device, W3C Digital Credentials API: bound to the page's origin. */
  | { kind: 'dc_api'; origin: string; nonce: string; jwkThumbprint?: Uint8Array | null }
  /** Cross device (QR / openid4vp:// link) with a response endpoint: bound to client id and response URI. */
  | { kind: 'redirect'; clientId: string; nonce: string; responseUri: string; jwkThumbprint?: Uint8Array | null };

export function sessionTranscriptBytes(channel: TranscriptChannel): Uint8Array {
  const handover =
    channel.kind === 'dc_api'
      ? ['OpenID4VPDCAPIHandover', sha256(cborEncode([channel.origin, channel.nonce, channel.jwkThumbprint ?? null]))]
      : ['OpenID4VPHandover', sha256(cborEncode([channel.clientId, channel.nonce, channel.jwkThumbprint ?? null, channel.responseUri]))];
  return cborEncode(DataItem.fromData([null, null, handover]));
}

/** For transcripts given as the bare SessionTranscript array (ISO 18013-5 Annex D prints it that way). */
export function wrapSessionTranscript(bareArray: Uint8Array): Uint8Array {
  return cborEncode(new DataItem({ buffer: bareArray }));
}

/** RFC 7638 thumbprint of an EC public key: the hash of its required members in lexical order. */
export function jwkThumbprint(jwk: { kty?: string; crv?: string; x?: string; y?: string }): Uint8Array {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  return sha256(Buffer.from(canonical));
}

function sha256(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(bytes).digest());
}
