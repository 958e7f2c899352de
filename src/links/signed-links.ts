import { createHmac, timingSafeEqual } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { instanceSecret } from '../crypto/instance-secret';
import { randomBase62 } from '../ids';
import { systemClock, type Clock } from '../clock';

export type LinkCheck = 'valid' | 'expired' | 'invalid';

/**
 * One kind of signed link: its key's name in instance_settings, the purpose mixed into every
 * signature (so a signature of one kind never opens another), and the path it points at.
 * A kind with `ttlSeconds` makes expiring links (`?expires=<unix>&sig=<hex>`); one without makes
 * links that stay valid as long as their owner allows (`?token=<base64url>`).
 */
export type LinkKind = { settingKey: string; purpose: string; path: (subject: string) => string; ttlSeconds?: number };

/** The hosted page's URL, shown once in the create answer; it ends an hour after the session does (`hostedLinkEnded`). */
export const HOSTED_PAGE_LINK: LinkKind = { settingKey: 'hosted_link_key', purpose: 'hosted', path: (sessionId) => `/hosted/${sessionId}` };

/** An evidence download, its own credential for 15 minutes, so only ever handed to a tenant-key read. */
export const EVIDENCE_LINK: LinkKind = { settingKey: 'evidence_url_key', purpose: 'evidence', path: (artifactId) => `/v1/evidence/${artifactId}`, ttlSeconds: 15 * 60 };

/** How long an export bundle's download link works (and the bundle is kept). */
export const EXPORT_LINK_DAYS = 7;

/** An export bundle's download: it opens the zip only; its documents need the export's key, never part of a link. */
export const EXPORT_BUNDLE_LINK: LinkKind = { settingKey: 'export_url_key', purpose: 'export', path: (dsrId) => `/v1/exports/${dsrId}/bundle.zip`, ttlSeconds: EXPORT_LINK_DAYS * 86_400 };

/**
 * Links that are their own credential: an HMAC-SHA256 of the link's kind, subject (and expiry)
 * under a key shared by every instance through instance_settings, compared in constant time.
 */
export class SignedLinks {
  private constructor(
    private readonly kind: LinkKind,
    private readonly publicBaseUrl: string,
    private readonly key: Buffer,
    private readonly now: Clock,
  ) {}

  static async load(db: DataSource, kind: LinkKind, publicBaseUrl: string, now: Clock = systemClock): Promise<SignedLinks> {
    const secret = await instanceSecret(db, kind.settingKey, () => randomBase62(48));
    return new SignedLinks(kind, publicBaseUrl, Buffer.from(secret, 'utf8'), now);
  }

  static withKey(kind: LinkKind, publicBaseUrl: string, key: Buffer, now: Clock = systemClock): SignedLinks {
    return new SignedLinks(kind, publicBaseUrl, key, now);
  }

  /** The link to `subject`; an expiring kind's link ends at `expiresAt`, by default the kind's lifetime from now. */
  url(subject: string, expiresAt?: Date): string {
    return `${this.publicBaseUrl}${this.kind.path(subject)}?${this.query(subject, expiresAt)}`;
  }

  /** The link's query alone (`token=...`, or `expires=...&sig=...`), for a route that serves the same subject under another path. */
  query(subject: string, expiresAt?: Date): string {
    if (this.kind.ttlSeconds === undefined) return `token=${this.token(subject)}`;
    const expires = Math.floor((expiresAt ?? new Date(this.now().getTime() + this.kind.ttlSeconds * 1000)).getTime() / 1000);
    return `expires=${expires}&sig=${this.signature(subject, expires)}`;
  }

  /** A link without expiry: true when `token` (whatever the request carried) was made for `subject`. */
  verify(subject: string, token: unknown): boolean {
    if (typeof token !== 'string') return false;
    const expected = Buffer.from(this.token(subject));
    const given = Buffer.from(token);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  /** An expiring link: valid, expired, or not one of ours. */
  check(subject: string, expires: unknown, sig: unknown): LinkCheck {
    if (typeof expires !== 'string' || !/^\d{1,12}$/.test(expires) || typeof sig !== 'string' || !/^[0-9a-f]{64}$/.test(sig)) return 'invalid';
    const expected = Buffer.from(this.signature(subject, Number(expires)), 'hex');
    if (!timingSafeEqual(expected, Buffer.from(sig, 'hex'))) return 'invalid';
    return Number(expires) * 1000 <= this.now().getTime() ? 'expired' : 'valid';
  }

  private token(subject: string): string {
    return createHmac('sha256', this.key).update(`${this.kind.purpose}:${subject}`).digest('base64url');
  }

  private signature(subject: string, expires: number): string {
    return createHmac('sha256', this.key).update(`${this.kind.purpose}:${subject}:${expires}`).digest('hex');
  }
}
