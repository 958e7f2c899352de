import { createHmac, timingSafeEqual } from 'node:crypto';
import { DataSource } from 'typeorm';
import { InstanceSettingEntity } from '../../entities';
import { randomBase62 } from '../ids';

const SETTING_KEY = 'hosted_link_key';
const MAX_CACHED_URLS = 10_000;

/**
 * Hosted-page URLs carry a token derived from the session id with a key shared by every instance,
 * so the URL can be shown on every read without storing a secret per session.
 */
export class HostedLinks {
  // Every poll of a session shows its URL; one HMAC per session, not per read.
  private readonly urls = new Map<string, string>();

  private constructor(
    private readonly publicBaseUrl: string,
    private readonly key: Buffer,
  ) {}

  static async load(db: DataSource, publicBaseUrl: string): Promise<HostedLinks> {
    const repo = db.getRepository(InstanceSettingEntity);
    await repo.createQueryBuilder().insert().values({ key: SETTING_KEY, value: randomBase62(48) }).orIgnore().execute();
    const row = await repo.findOneByOrFail({ key: SETTING_KEY });
    return new HostedLinks(publicBaseUrl, Buffer.from(row.value, 'utf8'));
  }

  private token(sessionId: string): string {
    return createHmac('sha256', this.key).update(`hosted:${sessionId}`).digest('base64url');
  }

  url(sessionId: string): string {
    let url = this.urls.get(sessionId);
    if (url === undefined) {
      if (this.urls.size >= MAX_CACHED_URLS) this.urls.clear();
      url = `${this.publicBaseUrl}/hosted/${sessionId}?token=${this.token(sessionId)}`;
      this.urls.set(sessionId, url);
    }
    return url;
  }

  verify(sessionId: string, token: string): boolean {
    const expected = Buffer.from(this.token(sessionId));
    const given = Buffer.from(token);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}
