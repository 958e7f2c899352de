import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject, type JsonWebKey } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { instanceSecret } from '../crypto/instance-secret';

const SETTING_KEY = 'gateway_signing_key';

/** The public half, as published at /v1/.well-known/gateway-keys. */
export type GatewayJwk = { kty: 'EC'; crv: 'P-256'; x: string; y: string; kid: string; use: 'sig'; alg: 'ES256' };

const b64url = (b: Buffer | string): string => Buffer.from(b).toString('base64url');

/**
 * The P-256 key that signs every `Service-Actor` header the gateway sends upstream (docs/decisions.md D18).
 * One key shared by every instance through instance_settings, like the export key; its `kid` is the
 * RFC 7638 thumbprint of the public key. Signed with node:crypto, synchronously: one signature per
 * proxied request, and WebCrypto's asynchronous sign cost more than the signature itself (bench:gateway).
 */
export class GatewaySigningKey {
  private readonly publicJwk: GatewayJwk;
  /** The JWT header is the same for every token of this key: encoded once, not per proxied request. */
  private readonly encodedHeader: string;

  private constructor(private readonly privateKey: KeyObject) {
    const jwk = createPublicKey(privateKey).export({ format: 'jwk' }) as JsonWebKey;
    const x = String(jwk.x);
    const y = String(jwk.y);
    const kid = b64url(createHash('sha256').update(`{"crv":"P-256","kty":"EC","x":"${x}","y":"${y}"}`).digest());
    this.publicJwk = { kty: 'EC', crv: 'P-256', x, y, kid, use: 'sig', alg: 'ES256' };
    this.encodedHeader = b64url(JSON.stringify({ alg: 'ES256', kid, typ: 'service-actor+jwt' }));
  }

  static async load(db: DataSource): Promise<GatewaySigningKey> {
    const pem = await instanceSecret(db, SETTING_KEY, () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString());
    return GatewaySigningKey.fromPem(pem);
  }

  /** The key of a PKCS#8 PEM (what `load` keeps in instance_settings). */
  static fromPem(pem: string): GatewaySigningKey {
    return new GatewaySigningKey(createPrivateKey(pem));
  }

  /** A compact ES256 JWT (RFC 7519, `typ: service-actor+jwt`) with these claims, valid for `lifetimeSeconds`. */
  sign(claims: Record<string, unknown>, opts: { issuer: string; audience: string; lifetimeSeconds: number; jti: string }): string {
    const iat = Math.floor(Date.now() / 1000);
    const payload = b64url(JSON.stringify({ ...claims, iss: opts.issuer, aud: opts.audience, iat, exp: iat + opts.lifetimeSeconds, jti: opts.jti }));
    const input = `${this.encodedHeader}.${payload}`;
    return `${input}.${b64url(sign('sha256', Buffer.from(input), { key: this.privateKey, dsaEncoding: 'ieee-p1363' }))}`;
  }

  jwks(): { keys: GatewayJwk[] } {
    return { keys: [this.publicJwk] };
  }
}
