import type { JsonWebKey } from 'node:crypto';
import { requestedCredentialsForTier } from './requested-claims';

/**
 * The OpenID4VP 1.0 request the service sends a wallet: a DCQL query for the tier's claims (D24) over
 * the three accepted credentials, any one of which satisfies it. Two channels carry it:
 * - same device, W3C Digital Credentials API: `navigator.credentials.get({ digital: { requests } })`
 *   with protocol `openid4vp-v1-unsigned`, and `openid4vp-v1-signed` first when a verifier key is configured;
 *   the answer comes back to the page (response_mode `dc_api`).
 * - cross device: an `openid4vp://` link / QR with the request by reference (`request_uri`), answered
 *   with `direct_post.jwt` (a JWE to the session's key) at the service's response endpoint.
 */

export interface DcqlQuery {
  readonly credentials: ReadonlyArray<Record<string, unknown>>;
  readonly credential_sets: ReadonlyArray<{ options: string[][] }>;
}

export function dcqlQueryForTier(tier: number): DcqlQuery {
  const credentials = requestedCredentialsForTier(tier).map((credential) =>
    credential.format === 'mso_mdoc'
      ? {
          id: credential.id,
          format: 'mso_mdoc',
          meta: { doctype_value: credential.credentialType },
          claims: credential.elements.map((element) => ({ path: [credential.namespace, element], intent_to_retain: true })),
        }
      : {
          id: credential.id,
          format: 'dc+sd-jwt',
          meta: { vct_values: [credential.credentialType] },
          claims: credential.elements.map((element) => ({ path: [element] })),
        },
  );
  return { credentials, credential_sets: [{ options: credentials.map((c) => [c.id]) }] };
}

const VP_FORMATS = {
  mso_mdoc: { issuerauth_alg_values: [-7, -35, -36, -8], deviceauth_alg_values: [-7, -35, -36, -8] },
  'dc+sd-jwt': { 'sd-jwt_alg_values': ['ES256', 'ES384', 'ES512', 'EdDSA'], 'kb-jwt_alg_values': ['ES256', 'ES384', 'ES512', 'EdDSA'] },
};

export type DcApiProtocol = 'openid4vp-v1-unsigned' | 'openid4vp-v1-signed';

/** Same device. The origin binds the answer (no client_id: the browser vouches for the origin). */
export function dcApiRequest(input: { tier: number; nonce: string }): { protocol: 'openid4vp-v1-unsigned'; data: Record<string, unknown> } {
  return {
    protocol: 'openid4vp-v1-unsigned',
    data: {
      response_type: 'vp_token',
      response_mode: 'dc_api',
      nonce: input.nonce,
      dcql_query: dcqlQueryForTier(input.tier),
      client_metadata: { vp_formats_supported: VP_FORMATS },
    },
  };
}

/**
 * Same device, signed (OpenID4VP 1.0 Appendix A.3.2): the request object carries the verifier's client_id
 * and `expected_origins`, signed with the verifier key, so the wallet can name the verifier and refuse the
 * request on any other page. The answer is still bound to the page's origin (A.4: the audience is
 * `origin:<origin>` for signed requests too), so it is verified exactly as an unsigned one.
 */
export function signedDcApiRequestObject(input: { tier: number; nonce: string; clientId: string; origin: string; issuedAt: Date; expiresAt: Date }): Record<string, unknown> {
  return {
    ...dcApiRequest(input).data,
    client_id: input.clientId,
    expected_origins: [input.origin],
    aud: SELF_ISSUED_AUDIENCE,
    iat: Math.floor(input.issuedAt.getTime() / 1000),
    exp: Math.floor(input.expiresAt.getTime() / 1000),
  };
}

/** OpenID4VP 1.0 5.8: the `aud` of a request object when the verifier uses the static wallet metadata. */
export const SELF_ISSUED_AUDIENCE = 'https://self-issued.me/v2';

export interface CrossDeviceRequestInput {
  readonly tier: number;
  readonly nonce: string;
  readonly state: string;
  /** `redirect_uri:<responseUri>` unsigned, else the verifier certificate's `x509_san_dns:`/`x509_hash:` (OpenID4VP 1.0 5.9.3). */
  readonly clientId: string;
  readonly responseUri: string;
  /** The session's public encryption key (ECDH-ES), with its kid. */
  readonly encryptionJwk: JsonWebKey & { kid: string };
}

/**
 * The request object served at `request_uri`: unsigned under the `redirect_uri:` prefix (which forbids
 * signing), signed under `x509_san_dns:`/`x509_hash:` (which require it; `aud`, `iat` and `exp` then added).
 */
export function crossDeviceRequestObject(input: CrossDeviceRequestInput): Record<string, unknown> {
  return {
    response_type: 'vp_token',
    response_mode: 'direct_post.jwt',
    client_id: input.clientId,
    response_uri: input.responseUri,
    nonce: input.nonce,
    state: input.state,
    dcql_query: dcqlQueryForTier(input.tier),
    client_metadata: {
      jwks: { keys: [{ ...input.encryptionJwk, use: 'enc', alg: 'ECDH-ES' }] },
      encrypted_response_enc_values_supported: ['A128GCM', 'A256GCM'],
      vp_formats_supported: VP_FORMATS,
    },
  };
}

/** An unsigned JWT (`alg: none`, RFC 9101) carrying the request object, as `request_uri` returns it. */
export function unsignedRequestJwt(requestObject: Record<string, unknown>): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${encode({ alg: 'none', typ: 'oauth-authz-req+jwt' })}.${encode(requestObject)}.`;
}

/** The link a QR code carries (or a wallet app on the same phone opens). */
export function openid4vpLink(clientId: string, requestUri: string): string {
  const query = new URLSearchParams({ client_id: clientId, request_uri: requestUri, request_uri_method: 'get' });
  return `openid4vp://?${query.toString()}`;
}
