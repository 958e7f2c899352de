/** NUL, and UTF-16 surrogates without their other half: PostgreSQL text and jsonb cannot hold either. */
// eslint-disable-next-line no-control-regex -- finding NUL is the point
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Does the string hold a character PostgreSQL refuses ("invalid byte sequence", "unsupported Unicode escape sequence")? */
export function hasUnstorableCharacters(s: string): boolean {
  UNSTORABLE.lastIndex = 0;
  return UNSTORABLE.test(s);
}

/**
 * Text from outside that we keep but do not validate (a webhook receiver's response body, a
 * network error message): each unstorable character becomes U+FFFD, so storing it cannot fail.
 */
export function toStorableText(s: string): string;
export function toStorableText(s: string | null): string | null;
export function toStorableText(s: string | null): string | null {
  if (s === null) return null;
  UNSTORABLE.lastIndex = 0;
  return UNSTORABLE.test(s) ? s.replace(UNSTORABLE, '\uFFFD') : s;
}
