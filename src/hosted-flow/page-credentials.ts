import { createHmac, timingSafeEqual } from 'node:crypto';
import { DataSource } from 'typeorm';
import { DomainError } from '../errors';
import { randomBase62, SESSION_ID_PATTERN } from '../ids';
import { instanceSecret } from '../crypto/instance-secret';
import { systemClock, type Clock } from '../clock';

const SETTING_KEY = 'page_credential_key';
export const PAGE_CREDENTIAL_TTL_MS = 60 * 60 * 1000;
const PREFIX = 'hpc_';


/**
 * The hosted page's credential: minted from the hosted URL's token, held in the page's memory and
 * sent as a bearer token (never a cookie, which third-party iframes lose). It names one session and
 * expires within the hour; the page mints another from the token it still holds. Stateless: an
 * HMAC of session id and expiry under a key every instance shares.
 */
export class PageCredentials {
  private constructor(
    private readonly key: Buffer,
    private readonly now: Clock,
  ) {}

  static async load(db: DataSource, now: Clock = systemClock): Promise<PageCredentials> {
    const secret = await instanceSecret(db, SETTING_KEY, () => randomBase62(48));
    return new PageCredentials(Buffer.from(secret, 'utf8'), now);
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(`page:${body}`).digest('base64url');
  }

  mint(sessionId: string): { credential: string; expiresAt: Date } {
    const expiresAt = new Date(this.now().getTime() + PAGE_CREDENTIAL_TTL_MS);
    const body = `${sessionId}.${Math.floor(expiresAt.getTime() / 1000)}`;
    return { credential: `${PREFIX}${body}.${this.mac(body)}`, expiresAt };
  }

  /** The session the credential names; `unauthorized` for anything forged, malformed or expired. */
  verify(authorization: string | undefined): string {
    const m = /^Bearer (hpc_(vses_[A-Za-z0-9]+)\.(\d{1,12})\.([A-Za-z0-9_-]{43}))$/.exec(authorization ?? '');
    if (!m || !SESSION_ID_PATTERN.test(m[2])) throw new DomainError('unauthorized', 'Missing or invalid page credential');
    const body = `${m[2]}.${m[3]}`;
    const expected = Buffer.from(this.mac(body));
    const given = Buffer.from(m[4]);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw new DomainError('unauthorized', 'Missing or invalid page credential');
    if (Number(m[3]) * 1000 <= this.now().getTime()) throw new DomainError('unauthorized', 'The page credential has expired; reload the page');
    return m[2];
  }
}
