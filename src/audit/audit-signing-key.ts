import { createPrivateKey, generateKeyPairSync, KeyObject } from 'node:crypto';
import { DataSource } from 'typeorm';
import { instanceSecret } from '../crypto/instance-secret';

const SETTING_KEY = 'audit_signing_key';

/**
 * The Ed25519 key that signs segment heads: AUDIT_SIGNING_KEY (PKCS#8 PEM, or its base64), or one
 * generated on first use and kept in instance_settings, shared by every instance. The public key
 * travels in each head; `audit verify` pins it by its key_id.
 */
export async function loadAuditSigningKey(db: DataSource, configured: string | undefined): Promise<KeyObject> {
  if (configured) {
    const pem = configured.includes('BEGIN') ? configured : Buffer.from(configured, 'base64').toString('utf8');
    const key = createPrivateKey(pem);
    if (key.asymmetricKeyType !== 'ed25519') throw new Error('AUDIT_SIGNING_KEY must be an Ed25519 private key');
    return key;
  }
  return createPrivateKey(await instanceSecret(db, SETTING_KEY, () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()));
}
