import { createHmac, timingSafeEqual } from 'node:crypto';
import { DataSource } from 'typeorm';
import { randomBase62 } from '../../ids';
import type { LinkCheck } from '../../vault/evidence-links';
import { instanceSecret } from '../../crypto/instance-secret';

const SETTING_KEY = 'export_url_key';
/** How long a bundle's download link works (and the bundle is kept). */
export const EXPORT_LINK_DAYS = 7;

/**
 * Pre-signed download links of export bundles: `<base>/v1/exports/<dsr_id>/bundle.zip?expires=<unix>&sig=<hex>`,
 * an HMAC-SHA256 of the job id and expiry under a key shared by every instance. The link opens
 * the zip only: its documents need the export's key, which is never part of a link.
 */
export class ExportLinks {
  private constructor(
    private readonly publicBaseUrl: string,
    private readonly key: Buffer,
    private readonly now: () => Date,
  ) {}

  static async load(db: DataSource, publicBaseUrl: string, now: () => Date = () => new Date()): Promise<ExportLinks> {
    const secret = await instanceSecret(db, SETTING_KEY, () => randomBase62(48));
    return new ExportLinks(publicBaseUrl, Buffer.from(secret, 'utf8'), now);
  }

  private sign(dsrId: string, expires: number): string {
    return createHmac('sha256', this.key).update(`export:${dsrId}:${expires}`).digest('hex');
  }

  /** The link of a bundle finished at `readyAt`; the same link every time it is shown. */
  url(dsrId: string, expiresAt: Date): string {
    const expires = Math.floor(expiresAt.getTime() / 1000);
    return `${this.publicBaseUrl}/v1/exports/${dsrId}/bundle.zip?expires=${expires}&sig=${this.sign(dsrId, expires)}`;
  }

  check(dsrId: string, expires: unknown, sig: unknown): LinkCheck {
    if (typeof expires !== 'string' || !/^\d{1,12}$/.test(expires) || typeof sig !== 'string' || !/^[0-9a-f]{64}$/.test(sig)) return 'invalid';
    const expected = Buffer.from(this.sign(dsrId, Number(expires)), 'hex');
    if (!timingSafeEqual(expected, Buffer.from(sig, 'hex'))) return 'invalid';
    return Number(expires) * 1000 <= this.now().getTime() ? 'expired' : 'valid';
  }
}
