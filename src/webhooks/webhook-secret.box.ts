import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { InstanceSettingEntity } from '../../entities';

const SETTING_KEY = 'webhook_secret_key';
const VERSION = 'v1';

/**
 * Signing secrets must be usable in clear to sign, so they are encrypted at rest (AES-256-GCM)
 * rather than hashed. The key comes from WEBHOOK_SECRET_KEY, or else one generated on first start
 * and shared by every instance through instance_settings (as the hosted-link key is).
 */
export class WebhookSecretBox {
  private constructor(private readonly key: Buffer) {}

  static async load(db: DataSource, configured: string | undefined): Promise<WebhookSecretBox> {
    if (configured) return new WebhookSecretBox(decodeKey(configured, 'WEBHOOK_SECRET_KEY'));
    const repo = db.getRepository(InstanceSettingEntity);
    await repo.createQueryBuilder().insert().values({ key: SETTING_KEY, value: randomBytes(32).toString('base64') }).orIgnore().execute();
    const row = await repo.findOneByOrFail({ key: SETTING_KEY });
    return new WebhookSecretBox(decodeKey(row.value, SETTING_KEY));
  }

  static fromKey(key: Buffer): WebhookSecretBox {
    return new WebhookSecretBox(key);
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64')}`;
  }

  open(sealed: string): string {
    const [version, data] = sealed.split(':');
    if (version !== VERSION || !data) throw new Error('unknown sealed secret format');
    const raw = Buffer.from(data, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

function decodeKey(value: string, name: string): Buffer {
  const key = Buffer.from(value, 'base64');
  if (key.length !== 32) throw new Error(`${name} must be the base64 of exactly 32 bytes`);
  return key;
}
