import type { EndUserActor } from './actor';
import { CoalescingReader } from '../db/coalescing-reader';
import type { PreparedSql } from '../db/prepared-sql';
import { DomainError } from '../errors';
import { FIRST_PARTY_CLIENT_ID } from '../oidc/first-party-sign-in';
import type { OidcClients } from '../oidc/oidc-clients';
import type { OidcKeys } from '../oidc/oidc-keys';

const unauthorized = (why: string) => new DomainError('unauthorized', `Invalid access token: ${why}`);
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export const looksLikeJwt = (credential: string): boolean => JWT_SHAPE.test(credential);

type GrantKey = { tenantId: string; sub: string; grantId: string };
const grantKey = (k: GrantKey): string => `${k.tenantId}\u0000${k.sub}\u0000${k.grantId}`;

/** Tokens remembered at most (~1 KB each); the map is emptied when full. */
const MAX_REMEMBERED_TOKENS = 10_000;

type Claims = { iss?: string; aud?: string | string[]; exp?: number; nbf?: number; sub?: string; client_id?: string; scope?: string; gid?: string; auth_time?: number };
type SignedClaims = Readonly<Claims & { kid: string; exp: number; sub: string; client_id: string; gid: string }>;

/**
 * The end user's JWT access token for the `/v1` resource (docs/accounts-and-oidc.md, "/v1/me"):
 * signature against the provider's keys held in memory (no JWKS fetch per call), issuer, audience,
 * expiry, then one statement that maps the tenant's pairwise subject to the user and checks that
 * the user may still act and that the grant the token came from is not revoked.
 *
 * That statement is shared by concurrent requests (CoalescingReader, as API keys' liveness is):
 * each is still answered by a query that started after it arrived, so a revoked grant or a deleted
 * user is refused from the moment that commits, on every instance; under load one query serves many.
 */
export class AccessTokenVerifier {
  private readonly grants: CoalescingReader<GrantKey, string>;
  /** The account portal's grants: the user is the grant's account, whose portal subject the token must name. */
  private readonly portalGrants: CoalescingReader<string, string>;
  /** Tokens whose signature and fixed claims held, by the token (see checkSignedClaims). */
  private readonly signedClaims = new Map<string, SignedClaims>();

  constructor(
    private readonly keys: OidcKeys,
    private readonly clients: OidcClients,
    sql: PreparedSql,
    private readonly issuer: string,
    private readonly audience: string,
    private readonly portalSubjectOf: (userId: string) => string,
  ) {
    this.grants = new CoalescingReader(async (wanted) => {
      const rows = await sql.rows<{ tenant_id: string; sub: string; grant_id: string; user_id: string }>(
        'end-users-of-tokens',
        `SELECT k.tenant_id, k.sub, k.grant_id, s.user_id
           FROM unnest($1::text[], $2::text[], $3::text[]) AS k(tenant_id, sub, grant_id)
           JOIN user_subjects s ON s.tenant_id = k.tenant_id AND s.sub = k.sub
           JOIN users u ON u.id = s.user_id AND u.state IN ('active', 'restricted')
          WHERE EXISTS (SELECT 1 FROM oidc_payloads g WHERE g.model = 'Grant' AND g.id = k.grant_id AND g.account_id = s.user_id AND (g.expires_at IS NULL OR g.expires_at > now()))`,
        [wanted.map((k) => k.tenantId), wanted.map((k) => k.sub), wanted.map((k) => k.grantId)],
      );
      return new Map(rows.map((r) => [grantKey({ tenantId: r.tenant_id, sub: r.sub, grantId: r.grant_id }), r.user_id]));
    }, grantKey);
    this.portalGrants = new CoalescingReader(async (grantIds) => {
      const rows = await sql.rows<{ grant_id: string; user_id: string }>(
        'portal-users-of-tokens',
        `SELECT g.id AS grant_id, u.id AS user_id
           FROM oidc_payloads g JOIN users u ON u.id = g.account_id AND u.state IN ('active', 'restricted')
          WHERE g.model = 'Grant' AND g.id = ANY($1::text[]) AND g.payload->>'clientId' = $2 AND (g.expires_at IS NULL OR g.expires_at > now())`,
        [grantIds, FIRST_PARTY_CLIENT_ID],
      );
      return new Map(rows.map((r) => [r.grant_id, r.user_id]));
    }, (id) => id);
  }

  async verify(token: string): Promise<EndUserActor> {
    const remembered = this.signedClaims.get(token);
    // A key this process no longer holds (rotated out and reloaded) takes the full check again, and fails it.
    const claims = remembered && this.keys.holds(remembered.kid) ? remembered : await this.checkSignedClaims(token);
    const now = Math.floor(Date.now() / 1000);
    if (claims.exp <= now) throw unauthorized('expired');
    if (typeof claims.nbf === 'number' && claims.nbf > now + 5) throw unauthorized('not yet valid');
    const { userId, tenantId, livemode } = await this.userOf(claims);
    return Object.freeze({
      kind: 'end_user',
      userId,
      clientId: claims.client_id,
      tenantId,
      sub: claims.sub,
      livemode,
      scopes: Object.freeze((claims.scope ?? '').split(' ').filter(Boolean)),
      grantId: claims.gid,
      authTime: typeof claims.auth_time === 'number' ? claims.auth_time : null,
    });
  }

  /** The user behind a tenant client's pairwise subject, or behind the account portal's grant; refused when the grant ended. */
  private async userOf(claims: SignedClaims): Promise<{ userId: string; tenantId: string | null; livemode: boolean | null }> {
    if (claims.client_id === FIRST_PARTY_CLIENT_ID) {
      const userId = await this.portalGrants.read(claims.gid);
      if (!userId || this.portalSubjectOf(userId) !== claims.sub) throw unauthorized('revoked');
      return { userId, tenantId: null, livemode: null };
    }
    const client = await this.clients.tenantOf(claims.client_id);
    if (!client) throw unauthorized('unknown client');
    const userId = await this.grants.read({ tenantId: client.tenantId, sub: claims.sub, grantId: claims.gid });
    if (!userId) throw unauthorized('revoked');
    return { userId, tenantId: client.tenantId, livemode: client.livemode };
  }

  /**
   * Signature, issuer, audience and the claims' presence: what never changes for a token. The
   * answer is kept per token (as API gateways' JWT caches do), so a client's next call skips the
   * ECDSA verification; expiry, the client and the grant are still checked on every call.
   */
  private async checkSignedClaims(token: string): Promise<SignedClaims> {
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
    if (claims.iss !== this.issuer) throw unauthorized('wrong issuer');
    const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!aud.includes(this.audience)) throw unauthorized('wrong audience');
    if (typeof claims.exp !== 'number') throw unauthorized('expired');
    if (typeof claims.sub !== 'string' || typeof claims.client_id !== 'string' || typeof claims.gid !== 'string') throw unauthorized('missing claims');
    const signed = Object.freeze({ ...claims, kid: header.kid, exp: claims.exp, sub: claims.sub, client_id: claims.client_id, gid: claims.gid }) as SignedClaims;
    if (this.signedClaims.size >= MAX_REMEMBERED_TOKENS) this.signedClaims.clear(); // rare; cheaper than LRU bookkeeping on every hit
    this.signedClaims.set(token, signed);
    return signed;
  }
}
