import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { instanceSecret } from './instance-secret';

const VERSION = 'v1';

/**
 * AES-256-GCM sealing under a 32-byte key taken from an environment variable, or else generated on
 * first start and shared by every instance through instance_settings (as the webhook and vault
 * keys are). `hmac` gives keyed hashes for lookups of sealed values, under a key derived (HKDF)
 * from the same secret for that purpose only.
 */
export class SecretBox {
  private readonly hmacKey: Buffer;

  private constructor(private readonly key: Buffer) {
    this.hmacKey = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'lookup-hmac', 32));
  }

  static async load(db: DataSource, settingKey: string, configured: string | undefined, envName: string): Promise<SecretBox> {
    if (configured) return new SecretBox(decodeKey(configured, envName));
    const secret = await instanceSecret(db, settingKey, () => randomBytes(32).toString('base64'));
    return new SecretBox(decodeKey(secret, settingKey));
  }

  static fromKey(key: Buffer): SecretBox {
    return new SecretBox(key);
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64')}`;
  }

  open(sealed: string): string {
    const [version, data] = sealed.split(':');
    if (version !== VERSION || !data) throw new Error('unknown sealed value format');
    const raw = Buffer.from(data, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }

  hmac(value: string): string {
    return createHmac('sha256', this.hmacKey).update(value, 'utf8').digest('hex');
  }
}

export function decodeKey(value: string, name: string): Buffer {
  const key = Buffer.from(value, 'base64');
  if (key.length !== 32) throw new Error(`${name} must be the base64 of exactly 32 bytes`);
  return key;
}
