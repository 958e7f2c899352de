import { createHmac, timingSafeEqual } from 'node:crypto';
import { DataSource } from 'typeorm';
import { randomBase62 } from '../ids';
import type { Clock } from './evidence-vault';
import { instanceSecret } from '../crypto/instance-secret';

const SETTING_KEY = 'evidence_url_key';
export const EVIDENCE_URL_TTL_SECONDS = 15 * 60;

export type LinkCheck = 'valid' | 'expired' | 'invalid';

/**
 * Signed evidence links: `<base>/v1/evidence/<art_id>?expires=<unix>&sig=<hex>`, an HMAC-SHA256
 * of id and expiry under a key shared by every instance. A link is its own credential for 15
 * minutes, so it is only ever handed to a tenant-key read.
 */
export class EvidenceLinks {
  private constructor(
    private readonly publicBaseUrl: string,
    private readonly key: Buffer,
    private readonly now: Clock,
  ) {}

  static async load(db: DataSource, publicBaseUrl: string, now: Clock = () => new Date()): Promise<EvidenceLinks> {
    const secret = await instanceSecret(db, SETTING_KEY, () => randomBase62(48));
    return new EvidenceLinks(publicBaseUrl, Buffer.from(secret, 'utf8'), now);
  }

  static withKey(publicBaseUrl: string, key: Buffer, now: Clock): EvidenceLinks {
    return new EvidenceLinks(publicBaseUrl, key, now);
  }

  private sign(artifactId: string, expires: number): string {
    return createHmac('sha256', this.key).update(`evidence:${artifactId}:${expires}`).digest('hex');
  }

  url(artifactId: string): string {
    return `${this.publicBaseUrl}/v1/evidence/${artifactId}?${this.query(artifactId)}`;
  }

  /** The signature part of a link (`expires=...&sig=...`), also used by the console's own evidence route (docs/console.md). */
  query(artifactId: string): string {
    const expires = Math.floor(this.now().getTime() / 1000) + EVIDENCE_URL_TTL_SECONDS;
    return `expires=${expires}&sig=${this.sign(artifactId, expires)}`;
  }

  check(artifactId: string, expires: string | undefined, sig: string | undefined): LinkCheck {
    if (!expires || !/^\d{1,12}$/.test(expires) || !sig || !/^[0-9a-f]{64}$/.test(sig)) return 'invalid';
    const expected = Buffer.from(this.sign(artifactId, Number(expires)), 'hex');
    if (!timingSafeEqual(expected, Buffer.from(sig, 'hex'))) return 'invalid';
    return Number(expires) * 1000 <= this.now().getTime() ? 'expired' : 'valid';
  }
}
