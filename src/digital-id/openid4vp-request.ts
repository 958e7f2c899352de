import type { JsonWebKey } from 'node:crypto';
import { requestedCredentialsForTier } from './requested-claims';

/**
 * The OpenID4VP 1.0 request the service sends a wallet: a DCQL query for the tier's claims (D24) over
 * the three accepted credentials, any one of which satisfies it. Two channels carry it:
 * - same device, W3C Digital Credentials API: `navigator.credentials.get({ digital: { requests } })`
 *   with protocol `openid4vp-v1-unsigned`; the answer comes back to the page (response_mode `dc_api`).
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

export interface CrossDeviceRequestInput {
  readonly tier: number;
  readonly nonce: string;
  readonly state: string;
  /** `redirect_uri:<responseUri>`: the client identifier prefix of OpenID4VP 1.0 5.9.3. */
  readonly clientId: string;
  readonly responseUri: string;
  /** The session's public encryption key (ECDH-ES), with its kid. */
  readonly encryptionJwk: JsonWebKey & { kid: string };
}

/** The request object served at `request_uri` (unsigned: the redirect_uri prefix forbids signing). */
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
