import { EvidenceLinks } from './evidence-links';

describe('EvidenceLinks', () => {
  const key = Buffer.from('k'.repeat(48));
  let now = new Date('2026-01-01T12:00:00Z');
  const links = EvidenceLinks.withKey('https://verify.example', key, () => now);

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
    const other = EvidenceLinks.withKey('https://verify.example', Buffer.from('z'.repeat(48)), () => now);
    const { id, expires, sig } = parts(other.url('art_AAAAAAAAAAAAAAAAAAAAAAAA'));
    expect(links.check(id, expires, sig)).toBe('invalid');
  });
});
