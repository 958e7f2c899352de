import { createHmac } from 'node:crypto';
import { EVIDENCE_LINK, EXPORT_BUNDLE_LINK, HOSTED_PAGE_LINK, SignedLinks } from './signed-links';

describe('SignedLinks', () => {
  const key = Buffer.from('k'.repeat(48));
  let now = new Date('2026-01-01T12:00:00Z');
  const links = SignedLinks.withKey(EVIDENCE_LINK, 'https://verify.example', key, () => now);

  const parts = (url: string) => {
    const u = new URL(url);
    return { id: u.pathname.split('/').pop()!, expires: u.searchParams.get('expires')!, sig: u.searchParams.get('sig')! };
  };

  it('signs a link valid for 15 minutes by the injected clock, then expired', () => {
    now = new Date('2026-01-01T12:00:00Z');
    const { id, expires, sig } = parts(links.url('art_AAAAAAAAAAAAAAAAAAAAAAAA'));
    expect(Number(expires)).toBe(now.getTime() / 1000 + 900);
    now = new Date('2026-01-01T12:14:59Z');
    expect(links.check(id, expires, sig)).toBe('valid');
    now = new Date('2026-01-01T12:15:00Z');
    expect(links.check(id, expires, sig)).toBe('expired');
  });

  it('refuses a link whose id, expiry or signature was changed', () => {
    now = new Date('2026-01-01T12:00:00Z');
    const { id, expires, sig } = parts(links.url('art_AAAAAAAAAAAAAAAAAAAAAAAA'));
    expect(links.check('art_BBBBBBBBBBBBBBBBBBBBBBBB', expires, sig)).toBe('invalid');
    expect(links.check(id, String(Number(expires) + 60), sig)).toBe('invalid');
    expect(links.check(id, expires, sig.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')))).toBe('invalid');
    expect(links.check(id, expires, undefined)).toBe('invalid');
    expect(links.check(id, 'soon', sig)).toBe('invalid');
  });

  it('a link signed under another key is refused', () => {
    const other = SignedLinks.withKey(EVIDENCE_LINK, 'https://verify.example', Buffer.from('z'.repeat(48)), () => now);
    const { id, expires, sig } = parts(other.url('art_AAAAAAAAAAAAAAAAAAAAAAAA'));
    expect(links.check(id, expires, sig)).toBe('invalid');
  });

  it('a hosted page link carries a token for its session only, in the form links already handed out use', () => {
    const hosted = SignedLinks.withKey(HOSTED_PAGE_LINK, 'https://verify.example', key);
    const url = new URL(hosted.url('ses_AAAAAAAAAAAAAAAAAAAAAAAA'));
    expect(url.pathname).toBe('/hosted/ses_AAAAAAAAAAAAAAAAAAAAAAAA');
    const token = url.searchParams.get('token')!;
    // Tenants keep these URLs: the token must stay the HMAC of "hosted:<id>" it always was.
    expect(token).toBe(createHmac('sha256', key).update('hosted:ses_AAAAAAAAAAAAAAAAAAAAAAAA').digest('base64url'));
    expect(hosted.verify('ses_AAAAAAAAAAAAAAAAAAAAAAAA', token)).toBe(true);
    expect(hosted.verify('ses_BBBBBBBBBBBBBBBBBBBBBBBB', token)).toBe(false);
    expect(hosted.verify('ses_AAAAAAAAAAAAAAAAAAAAAAAA', token.slice(1))).toBe(false);
  });

  it('a signature of one kind of link does not open another kind under the same key', () => {
    now = new Date('2026-01-01T12:00:00Z');
    const exportLinks = SignedLinks.withKey(EXPORT_BUNDLE_LINK, 'https://verify.example', key, () => now);
    const evidence = parts(links.url('dsr_AAAAAAAAAAAAAAAAAAAAAAAA'));
    expect(exportLinks.check('dsr_AAAAAAAAAAAAAAAAAAAAAAAA', evidence.expires, evidence.sig)).toBe('invalid');
    const bundle = new URL(exportLinks.url('dsr_AAAAAAAAAAAAAAAAAAAAAAAA', new Date('2026-01-08T12:00:00Z')));
    expect(bundle.pathname).toBe('/v1/exports/dsr_AAAAAAAAAAAAAAAAAAAAAAAA/bundle.zip');
    expect(exportLinks.check('dsr_AAAAAAAAAAAAAAAAAAAAAAAA', bundle.searchParams.get('expires'), bundle.searchParams.get('sig'))).toBe('valid');
  });
});
