import type { EndUserActor } from '../auth/actor';
import type { PreparedSql } from '../db/prepared-sql';
import { DomainError } from '../errors';
import type { OidcClients } from './oidc-clients';
import type { OidcKeys } from './oidc-keys';

const unauthorized = (why: string) => new DomainError('unauthorized', `Invalid access token: ${why}`);
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export const looksLikeJwt = (credential: string): boolean => JWT_SHAPE.test(credential);

type Claims = { iss?: string; aud?: string | string[]; exp?: number; nbf?: number; sub?: string; client_id?: string; scope?: string; gid?: string };

/**
 * The end user's JWT access token for the `/v1` resource (docs/accounts-and-oidc.md, "/v1/me"):
 * signature against the provider's keys held in memory (no JWKS fetch per call), issuer, audience,
 * expiry, then one statement that maps the tenant's pairwise subject to the user and checks that
 * the user may still act and that the grant the token came from is not revoked.
 */
export class AccessTokenVerifier {
  constructor(
    private readonly keys: OidcKeys,
    private readonly clients: OidcClients,
    private readonly sql: PreparedSql,
    private readonly issuer: string,
    private readonly audience: string,
  ) {}

  async verify(token: string): Promise<EndUserActor> {
    const [h, p, s] = token.split('.');
    let header: { alg?: string; typ?: string; kid?: string };
    let claims: Claims;
    try {
      header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as typeof header;
      claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Claims;
    } catch {
      throw unauthorized('malformed');
    }
    if (header.alg !== 'ES256' || typeof header.kid !== 'string' || (header.typ ?? '').toLowerCase() !== 'at+jwt') throw unauthorized('unexpected header');
    if (!(await this.keys.verify(header.kid, `${h}.${p}`, Buffer.from(s, 'base64url')))) throw unauthorized('bad signature');
    const now = Math.floor(Date.now() / 1000);
    if (claims.iss !== this.issuer) throw unauthorized('wrong issuer');
    const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!aud.includes(this.audience)) throw unauthorized('wrong audience');
    if (typeof claims.exp !== 'number' || claims.exp <= now) throw unauthorized('expired');
    if (typeof claims.nbf === 'number' && claims.nbf > now + 5) throw unauthorized('not yet valid');
    if (typeof claims.sub !== 'string' || typeof claims.client_id !== 'string' || typeof claims.gid !== 'string') throw unauthorized('missing claims');
    const client = await this.clients.tenantOf(claims.client_id);
    if (!client) throw unauthorized('unknown client');
    const rows = await this.sql.rows<{ user_id: string }>(
      'end-user-of-token',
      `SELECT s.user_id FROM user_subjects s JOIN users u ON u.id = s.user_id
        WHERE s.tenant_id = $1 AND s.sub = $2 AND u.state IN ('active', 'restricted')
          AND EXISTS (SELECT 1 FROM oidc_payloads g WHERE g.model = 'Grant' AND g.id = $3 AND g.account_id = s.user_id AND (g.expires_at IS NULL OR g.expires_at > now()))`,
      [client.tenantId, claims.sub, claims.gid],
    );
    if (!rows.length) throw unauthorized('revoked');
    return Object.freeze({
      kind: 'end_user',
      userId: rows[0].user_id,
      clientId: claims.client_id,
      tenantId: client.tenantId,
      scopes: Object.freeze((claims.scope ?? '').split(' ').filter(Boolean)),
      grantId: claims.gid,
    });
  }
}
