import { createHmac, timingSafeEqual } from 'node:crypto';
import { DataSource } from 'typeorm';
import { randomBase62 } from '../ids';
import { TERMINAL_STATUSES, type SessionStatus } from '../sessions/session-status';
import { instanceSecret } from '../crypto/instance-secret';

/** How long the hosted URL (and the page's credential) still works after the session's terminal state (issue #25 finding 4). */
export const HOSTED_LINK_AFTER_END_MS = 60 * 60 * 1000;

/**
 * True once the session has been in a terminal state for an hour: its hosted URL and page
 * credentials are then refused like a forged one. The terminal state's time is `completed_at`
 * (success, failed) or the last change (expired, withdrawn).
 */
export function hostedLinkEnded(s: { status: string; completedAt: Date | null; updatedAt: Date }, now: Date): boolean {
  if (!TERMINAL_STATUSES.includes(s.status as SessionStatus)) return false;
  const endedAt = s.completedAt ?? s.updatedAt;
  return now.getTime() >= endedAt.getTime() + HOSTED_LINK_AFTER_END_MS;
}

const SETTING_KEY = 'hosted_link_key';

/**
 * Hosted-page URLs carry a token derived from the session id with a key shared by every instance.
 * Only the create answer shows the URL (issue #25 finding 4); it stops working an hour after the
 * session's terminal state (`hostedLinkEnded`).
 */
export class HostedLinks {
  private constructor(
    private readonly publicBaseUrl: string,
    private readonly key: Buffer,
  ) {}

  static async load(db: DataSource, publicBaseUrl: string): Promise<HostedLinks> {
    const secret = await instanceSecret(db, SETTING_KEY, () => randomBase62(48));
    return new HostedLinks(publicBaseUrl, Buffer.from(secret, 'utf8'));
  }

  private token(sessionId: string): string {
    return createHmac('sha256', this.key).update(`hosted:${sessionId}`).digest('base64url');
  }

  /** Built for the create answer, the page and its QR code only (no read shows it), so not worth caching. */
  url(sessionId: string): string {
    return `${this.publicBaseUrl}/hosted/${sessionId}?token=${this.token(sessionId)}`;
  }

  verify(sessionId: string, token: string): boolean {
    const expected = Buffer.from(this.token(sessionId));
    const given = Buffer.from(token);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}
