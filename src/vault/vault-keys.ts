import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { instanceSecret } from '../crypto/instance-secret';

const MASTER_SETTING = 'vault_master_key';
const WRAP_VERSION = 'v1';

/**
 * Envelope encryption for the vault: every tenant has its own 256-bit data key, stored only
 * wrapped (AES-256-GCM) by the master key. The master key comes from VAULT_MASTER_KEY, or else
 * one is generated on first start and kept in instance_settings, shared by every instance (as the
 * webhook secret key is). Rotating the master key re-wraps data keys only, never the artifacts.
 */
export class VaultKeys {
  // Unwrapped keys stay in this process's memory only; one unwrap per tenant, not per artifact.
  private readonly dataKeys = new Map<string, Buffer>();

  private constructor(
    private readonly db: DataSource,
    private readonly master: Buffer,
  ) {}

  static async load(db: DataSource, configured: string | undefined): Promise<VaultKeys> {
    if (configured) return new VaultKeys(db, decodeKey(configured, 'VAULT_MASTER_KEY'));
    const secret = await instanceSecret(db, MASTER_SETTING, () => randomBytes(32).toString('base64'));
    return new VaultKeys(db, decodeKey(secret, MASTER_SETTING));
  }

  /** The tenant's data key, created (and wrapped) on first use; concurrent first uses agree on one. */
  async dataKey(tenantId: string): Promise<Buffer> {
    const cached = this.dataKeys.get(tenantId);
    if (cached) return cached;
    await this.db.query(`INSERT INTO vault_data_keys (tenant_id, wrapped_key) VALUES ($1, $2) ON CONFLICT (tenant_id) DO NOTHING`, [tenantId, this.wrap(randomBytes(32))]);
    const rows: { wrapped_key: string }[] = await this.db.query(`SELECT wrapped_key FROM vault_data_keys WHERE tenant_id = $1`, [tenantId]);
    const key = unwrapDataKey(this.master, rows[0].wrapped_key);
    this.dataKeys.set(tenantId, key);
    return key;
  }

  private wrap(key: Buffer): string {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.master, iv);
    const ct = Buffer.concat([c.update(key), c.final()]);
    return `${WRAP_VERSION}:${Buffer.concat([iv, c.getAuthTag(), ct]).toString('base64')}`;
  }
}

/** A data key as stored (`v1:` base64 of IV, tag and ciphertext under the master key), unwrapped. */
export function unwrapDataKey(master: Buffer, wrapped: string): Buffer {
  const [version, data] = wrapped.split(':');
  if (version !== WRAP_VERSION || !data) throw new Error('unknown wrapped data key format');
  const raw = Buffer.from(data, 'base64');
  const d = createDecipheriv('aes-256-gcm', master, raw.subarray(0, 12));
  d.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([d.update(raw.subarray(28)), d.final()]);
}

function decodeKey(value: string, name: string): Buffer {
  const key = Buffer.from(value, 'base64');
  if (key.length !== 32) throw new Error(`${name} must be the base64 of exactly 32 bytes`);
  return key;
}
