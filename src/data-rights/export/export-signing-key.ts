import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, KeyObject, sign } from 'node:crypto';
import { DataSource } from 'typeorm';
import { instanceSecret } from '../../crypto/instance-secret';

const SETTING_KEY = 'export_signing_key';

export type ExportJwk = { kty: 'OKP'; crv: 'Ed25519'; x: string; kid: string; use: 'sig'; alg: 'EdDSA' };

const b64url = (b: Buffer | string): string => Buffer.from(b).toString('base64url');

/**
 * The Ed25519 key that signs every export manifest (docs/data-rights.md, "Verifying a bundle").
 * One key shared by every instance through instance_settings, like the service's other instance
 * keys; its public half is published as a JWKS at /v1/.well-known/export-keys. The `kid` is the
 * RFC 7638 thumbprint of the public key.
 */
export class ExportSigningKey {
  readonly kid: string;
  private readonly publicJwk: ExportJwk;

  private constructor(private readonly privateKey: KeyObject) {
    const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
    const x = String(jwk.x);
    this.kid = b64url(createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest());
    this.publicJwk = { kty: 'OKP', crv: 'Ed25519', x, kid: this.kid, use: 'sig', alg: 'EdDSA' };
  }

  static async load(db: DataSource): Promise<ExportSigningKey> {
    const pem = await instanceSecret(db, SETTING_KEY, () => generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString());
    return new ExportSigningKey(createPrivateKey(pem));
  }

  static generate(): ExportSigningKey {
    return new ExportSigningKey(generateKeyPairSync('ed25519').privateKey);
  }

  /** A compact JWS (RFC 7515) with the payload attached: `header.payload.signature`, all base64url. */
  signJws(payload: Buffer): string {
    const header = b64url(JSON.stringify({ alg: 'EdDSA', kid: this.kid, typ: 'JWS', cty: 'application/json' }));
    const signingInput = `${header}.${b64url(payload)}`;
    return `${signingInput}.${b64url(sign(null, Buffer.from(signingInput, 'ascii'), this.privateKey))}`;
  }

  jwks(): { keys: ExportJwk[] } {
    return { keys: [this.publicJwk] };
  }
}
