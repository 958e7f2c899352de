import { upstreamPathOf } from './gateway-upstream-path';

describe('upstreamPathOf', () => {
  it.each([
    ['/v1/social/feed?limit=5', '/v1/social/feed?limit=5'],
    ['/v1/social/a/./b/../c', '/v1/social/a/c'],
    ['/v1/social/a/b/..', '/v1/social/a/'],
    ['/v1/social/%7e/%2D%5f%2e', '/v1/social/~/-_.'],
    ['/v1/social/%c3%a9%20x', '/v1/social/%C3%A9%20x'],
    ['/v1/social', '/v1/social'],
    ['/V1/Social/x', '/V1/Social/x'],
    ['/v1/social/x?a=../../b', '/v1/social/x?a=../../b'],
  ])('passes %s as %s', (raw, expected) => {
    expect(upstreamPathOf(raw, '/v1/social')).toBe(expected);
  });

  it.each([
    '/v1/social/../../data-rights',
    '/v1/social/..',
    '/v1/social/%2e%2e/profiles/x',
    '/v1/social/.%2E/.%2e/x',
    '/v1/social/..%2f..%2fx',
    '/v1/social/a%2Fb',
    '/v1/social/a%5cb',
    '/v1/social/a\\b',
    '/v1/social/..;/x/..;/..;/y',
    '/v1/social/%252e%252e/x',
    '/v1/social/a%00b',
    '/v1/social/a%zz',
    '/v1/social/a%2',
    '/v1/social/a#b',
    '/v1/socialite/x',
    'v1/social/x',
  ])('refuses %s', (raw) => {
    expect(upstreamPathOf(raw, '/v1/social')).toBeNull();
  });
});
