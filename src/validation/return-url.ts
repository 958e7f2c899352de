import { DomainError } from '../errors';

const LOOPBACK = /^(localhost|127\.0\.0\.1|\[::1\])$/;

/**
 * Where the service may send a person back to (a session's `redirect_url`, an OAuth client's redirect
 * URIs): https, or in test mode also http on this machine's loopback for local development. Anything
 * else (`javascript:`, `data:`, plain http to another host) is refused with a 400 naming the field,
 * the same rule wherever such an address is set (docs/security.md).
 */
export function assertReturnUrl(value: string, field: string, livemode: boolean): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new DomainError('invalid_request', `${field} must be an absolute URI`);
  }
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && !livemode && LOOPBACK.test(url.hostname)) return;
  throw new DomainError('invalid_request', livemode ? `${field} must be an https URI in live mode` : `${field} must be an https URI, or http on localhost in test mode`);
}
