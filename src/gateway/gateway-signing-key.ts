import { calculateJwkThumbprint, exportJWK, importPKCS8, SignJWT, type CryptoKey, type JWK } from 'jose';
import { generateKeyPairSync, createPublicKey, createPrivateKey } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { InstanceSettingEntity } from '../../entities';

const SETTING_KEY = 'gateway_signing_key';

/** The public half, as published at /v1/.well-known/gateway-keys. */
export type GatewayJwk = JWK & { kid: string; use: 'sig'; alg: 'ES256' };

/**
 * The P-256 key that signs every `Service-Actor` header the gateway sends upstream (DECISIONS.md D18).
 * One key shared by every instance through instance_settings, like the export key; its `kid` is the
 * RFC 7638 thumbprint of the public key.
 */
export class GatewaySigningKey {
  private constructor(
    private readonly privateKey: CryptoKey,
    private readonly publicJwk: GatewayJwk,
  ) {}

  static async load(db: DataSource): Promise<GatewaySigningKey> {
    const repo = db.getRepository(InstanceSettingEntity);
    const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    await repo.createQueryBuilder().insert().values({ key: SETTING_KEY, value: pem }).orIgnore().execute();
    return GatewaySigningKey.fromPem((await repo.findOneByOrFail({ key: SETTING_KEY })).value);
  }

  static async fromPem(pem: string): Promise<GatewaySigningKey> {
    const jwk = await exportJWK(createPublicKey(createPrivateKey(pem)));
    const kid = await calculateJwkThumbprint(jwk);
    return new GatewaySigningKey(await importPKCS8(pem, 'ES256'), { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, kid, use: 'sig', alg: 'ES256' });
  }

  /** A compact ES256 JWT (`typ: service-actor+jwt`) with these claims, valid for `lifetimeSeconds`. */
  async sign(claims: Record<string, unknown>, opts: { issuer: string; audience: string; lifetimeSeconds: number; jti: string }): Promise<string> {
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: this.publicJwk.kid, typ: 'service-actor+jwt' })
      .setIssuer(opts.issuer)
      .setAudience(opts.audience)
      .setIssuedAt()
      .setExpirationTime(`${opts.lifetimeSeconds}s`)
      .setJti(opts.jti)
      .sign(this.privateKey);
  }

  jwks(): { keys: GatewayJwk[] } {
    return { keys: [this.publicJwk] };
  }
}
