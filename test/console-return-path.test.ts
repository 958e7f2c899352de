import { isConsolePath } from '../web/console/console-guard';

describe('where a console sign-in may return to', () => {
  it('accepts the console\'s own pages, with a simple query', () => {
    for (const p of ['/console', '/console/members', '/console/cases/vses_abc?lang=de-DE', '/console/queue?tier=T2&mode=live']) expect(isConsolePath(p)).toBe(true);
  });

  it('refuses other sites, other parts of the service, and dot segments', () => {
    for (const p of ['https://evil.example/console', '//evil.example/console', '/account', '/consolex', '/console/../v1/me', '/console//evil', '/console/%2e%2e/x', '/console\\evil', 42, undefined])
      expect(isConsolePath(p)).toBe(false);
  });
});
