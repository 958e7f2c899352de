/**
 * The path and query the upstream gets for a gateway request (docs/gateway.md, "Paths"): the caller's,
 * normalised as RFC 3986 §6.2.2 says (percent-escapes of unreserved characters decoded, the others
 * in upper case, dot-segments removed), and still under the surface's prefix the request came in by.
 * An upstream therefore never sees `..`, `%2e%2e` or an escaped slash it could resolve to another
 * of its routes (its data-rights contract, say) on a tenant's behalf.
 */

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * `rawUrl`: the request target as sent (`req.originalUrl`); `prefix`: the surface, e.g. `/v1/social`.
 * Null when the path leaves the prefix, or holds an escaped `/` or `\`, a backslash, a control
 * character, a `#` or a broken percent-escape: no upstream reads those the same way.
 */
export function upstreamPathOf(rawUrl: string, prefix: string): string | null {
  const q = rawUrl.indexOf('?');
  const rawPath = q < 0 ? rawUrl : rawUrl.slice(0, q);
  const query = q < 0 ? '' : rawUrl.slice(q);
  if (!rawPath.startsWith('/')) return null;

  const out: string[] = [];
  const segments = rawPath.slice(1).split('/');
  for (const [i, raw] of segments.entries()) {
    const segment = normalisedSegment(raw);
    if (segment === null) return null;
    // `..;x` is `..` to servers that read path parameters (Tomcat, Jetty).
    const bare = segment.split(';')[0];
    if (bare === '.' || bare === '..') {
      if (bare === '..' && out.pop() === undefined) return null;
      if (i === segments.length - 1) out.push(''); // `/a/b/..` is `/a/`
      continue;
    }
    out.push(segment);
  }
  const path = `/${out.join('/')}`;
  const lower = path.toLowerCase();
  if (lower !== prefix && !lower.startsWith(`${prefix}/`)) return null;
  return path + query;
}

function normalisedSegment(raw: string): string | null {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '\\' || c === '#' || c < ' ' || c === '\x7f') return null;
    if (c !== '%') {
      out += c;
      continue;
    }
    const hex = raw.slice(i + 1, i + 3);
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return null;
    const byte = parseInt(hex, 16);
    const decoded = String.fromCharCode(byte);
    if (decoded === '/' || decoded === '\\' || byte < 0x20 || byte === 0x7f) return null;
    // `%252e` is `%2e` to an upstream that decodes twice: an escaped escape of a dot, slash or backslash is refused too.
    if (byte === 0x25 && /^(2e|2f|5c)$/i.test(raw.slice(i + 3, i + 5))) return null;
    out += UNRESERVED.test(decoded) ? decoded : `%${hex.toUpperCase()}`;
    i += 2;
  }
  return out;
}
