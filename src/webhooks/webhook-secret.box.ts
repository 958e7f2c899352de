import type { DataSource } from 'typeorm';
import { SecretBox } from '../crypto/secret-box';

const SETTING_KEY = 'webhook_secret_key';

/**
 * Signing secrets must be usable in clear to sign, so they are encrypted at rest (AES-256-GCM)
 * rather than hashed: a SecretBox under WEBHOOK_SECRET_KEY, or else a key generated on first start
 * and shared by every instance through instance_settings (as the hosted-link key is).
 */
export type WebhookSecretBox = SecretBox;

export const WebhookSecretBox = {
  load: (db: DataSource, configured: string | undefined): Promise<SecretBox> => SecretBox.load(db, SETTING_KEY, configured, 'WEBHOOK_SECRET_KEY'),
  fromKey: (key: Buffer): SecretBox => SecretBox.fromKey(key),
};
