import type { DataSource } from 'typeorm';
import { hasUnstorableCharacters } from '../validation/postgres-text';

export const PUSHED_REQUEST_URN = 'urn:ietf:params:oauth:request_uri:';
/** What the authorization endpoint is handed instead of a request_uri already used: no such request, so the provider's own "invalid, expired, or was already used" answer. */
export const USED_REQUEST_URI = `${PUSHED_REQUEST_URN}used`;

/**
 * Makes a pushed authorization request single-use (RFC 9126 §4: "the request_uri MUST be one-time
 * use"). oidc-provider marks it consumed only when the flow it started answers the client, so until
 * then the same request_uri could start a second flow. The first use claims it here, atomically (one
 * UPDATE, so two concurrent uses cannot both win); the flow it started still finishes and consumes it.
 * True when this use is the first (or names no pushed request, which the provider refuses itself).
 */
export async function claimPushedRequest(db: DataSource, requestUri: string): Promise<boolean> {
  if (!requestUri.startsWith(PUSHED_REQUEST_URN)) return true;
  const id = requestUri.slice(PUSHED_REQUEST_URN.length);
  if (hasUnstorableCharacters(id)) return true; // no row holds it: the provider refuses the request itself
  const exists: unknown[] = await db.query(`SELECT 1 FROM oidc_payloads WHERE model = 'PushedAuthorizationRequest' AND id = $1`, [id]);
  if (!exists.length) return true;
  const out: unknown = await db.query(
    `UPDATE oidc_payloads SET payload = payload || jsonb_build_object('claimedAt', extract(epoch FROM now())::bigint)
      WHERE model = 'PushedAuthorizationRequest' AND id = $1 AND NOT (payload ? 'claimedAt') RETURNING id`,
    [id],
  );
  const rows = Array.isArray(out) && Array.isArray(out[0]) ? out[0] : out;
  return Array.isArray(rows) && rows.length > 0;
}
