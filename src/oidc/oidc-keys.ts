import { createPublicKey, generateKeyPairSync, verify, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { SecretBox } from '../crypto/secret-box';
import { updatedRows } from '../db/updated-rows';
import { randomBase62 } from '../ids';

export type SigningJwk = JsonWebKey & { kid: string; alg: 'ES256'; use: 'sig' };

/**
 * The provider's ES256 signing keys (docs/accounts-and-oidc.md, "Signing keys"): generated once,
 * stored sealed, newest first (the provider signs with the first). A rotation adds a new key and
 * keeps the old ones published, and accepted, until their `retire_at`.
 */
export class OidcKeys {
  private publicKeys = new Map<string, KeyObject>();
  private lastReload = 0;

  private constructor(
    private readonly db: DataSource,
    private readonly box: SecretBox,
    private keys: SigningJwk[],
  ) {
    this.index();
  }

  static async load(db: DataSource, box: SecretBox): Promise<OidcKeys> {
    let keys = await readKeys(db, box);
    if (!keys.length) {
      await insertKey(db, box, 'first');
      keys = await readKeys(db, box);
    }
    return new OidcKeys(db, box, keys);
  }

  /** Private JWKs for the provider's `jwks` option. */
  get signingKeys(): SigningJwk[] {
    return this.keys;
  }

  /** Whether this process holds the public key `kid` (a key retired and reloaded away is no longer held). */
  holds(kid: string): boolean {
    return this.publicKeys.has(kid);
  }

  /**
   * Checks an ES256 JWS signature against a published key. An unknown kid (a key another instance
   * rotated in) rereads the table, at most once every 10 s.
   */
  async verify(kid: string, signingInput: string, signature: Buffer): Promise<boolean> {
    let key = this.publicKeys.get(kid);
    if (!key && Date.now() - this.lastReload > 10_000) {
      this.lastReload = Date.now();
      this.keys = await readKeys(this.db, this.box);
      this.index();
      key = this.publicKeys.get(kid);
    }
    if (!key) return false;
    return verify('sha256', Buffer.from(signingInput), { key, dsaEncoding: 'ieee-p1363' }, signature);
  }

  private index(): void {
    this.publicKeys = new Map(this.keys.map((k) => [k.kid, createPublicKey({ key: { kty: k.kty, crv: k.crv, x: k.x, y: k.y } as JsonWebKey, format: 'jwk' })]));
  }
}

/** A new signing key; keys older than it stop being published `overlapHours` from now. Servers sign with it after their next start. */
export async function rotateSigningKeys(db: DataSource, box: SecretBox, overlapHours: number): Promise<{ kid: string; retiring: string[] }> {
  const retiring = updatedRows<{ kid: string }>(await db.query(
    `UPDATE oidc_signing_keys SET retire_at = now() + make_interval(secs => $1) WHERE retire_at IS NULL RETURNING kid`,
    [overlapHours * 3600],
  ));
  const kid = await insertKey(db, box, 'rotation');
  return { kid, retiring: retiring.map((r) => r.kid) };
}

async function insertKey(db: DataSource, box: SecretBox, why: 'first' | 'rotation'): Promise<string> {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const kid = randomBase62(16);
  const jwk: SigningJwk = { ...privateKey.export({ format: 'jwk' }), kid, alg: 'ES256', use: 'sig' };
  // Several instances starting at once on an empty table: only the first key of all survives, the others are dropped.
  if (why === 'first') {
    await db.query(`INSERT INTO oidc_signing_keys (kid, jwk_sealed) SELECT $1, $2 WHERE NOT EXISTS (SELECT 1 FROM oidc_signing_keys)`, [kid, box.seal(JSON.stringify(jwk))]);
  } else {
    await db.query(`INSERT INTO oidc_signing_keys (kid, jwk_sealed) VALUES ($1, $2)`, [kid, box.seal(JSON.stringify(jwk))]);
  }
  return kid;
}

async function readKeys(db: DataSource, box: SecretBox): Promise<SigningJwk[]> {
  const rows: { jwk_sealed: string }[] = await db.query(
    `SELECT jwk_sealed FROM oidc_signing_keys WHERE retire_at IS NULL OR retire_at > now() ORDER BY created_at DESC, kid`,
  );
  return rows.map((r) => JSON.parse(box.open(r.jwk_sealed)) as SigningJwk);
}
