/**
 * Addresses from the configuration (registry and sanctions-list URLs, upstreams) can carry a user and
 * password, an API key in the query or a token in the path (a private mirror's signed address). These
 * say how each is shown and used, so none of that reaches an unauthenticated route, a log line or a
 * check's reason.
 */

/** As an unauthenticated route (`/healthz`) or a log line shows it: the origin only (scheme, host, port). */
export function publicOriginOf(url: string): string {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? 'unparsable' : origin;
  } catch {
    return 'unparsable';
  }
}

/**
 * How to call it: fetch refuses a URL with credentials in it, so a user and password become an
 * `Authorization: Basic` header (unless the caller sets its own), and the URL goes without them.
 */
export function requestOf(url: string, headers: Record<string, string> = {}): { url: string; headers: Record<string, string> } {
  const u = new URL(url);
  if (!u.username && !u.password) return { url, headers };
  const basic = Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64');
  u.username = '';
  u.password = '';
  const hasAuthorization = Object.keys(headers).some((k) => k.toLowerCase() === 'authorization');
  return { url: u.toString(), headers: hasAuthorization ? headers : { ...headers, authorization: `Basic ${basic}` } };
}
