import type { OutgoingHttpHeaders } from 'node:http';

/** RFC 9110 §7.6.1 connection-specific fields: never forwarded, either way, with any the Connection header names. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/**
 * Request fields the gateway sets itself (framing, address, identity) or that concern only the caller's
 * connection to the gateway: the caller's values never go upstream. `expect` was answered by the
 * gateway's own server (100 Continue) already.
 */
const GATEWAY_OWNED_REQUEST = new Set(['host', 'content-length', 'authorization', 'cookie', 'service-actor', 'request-id', 'expect']);

/**
 * Answer fields that act on the whole origin (the one that also serves /console and /account) rather
 * than on this answer: a cookie the upstream sets would be the console's or the portal's; the others
 * would clear that origin's data, pin it, move it elsewhere or widen a service worker's scope.
 */
const ORIGIN_WIDE_ANSWER = new Set(['set-cookie', 'set-cookie2', 'clear-site-data', 'alt-svc', 'strict-transport-security', 'service-worker-allowed']);

/** The gateway frames the answer itself: the upstream's framing fields never reach the caller. */
const ANSWER_FRAMING = new Set(['content-length']);

/** The upstream's answer can be anything, served from our origin: never run as a page or sniffed into one. */
export const PASSED_THROUGH_ANSWER_HEADERS = { 'x-content-type-options': 'nosniff', 'content-security-policy': 'sandbox' } as const;

/** HOP_BY_HOP and GATEWAY_OWNED_REQUEST: one look-up per field on every proxied request. */
const NEVER_FORWARDED = new Set([...HOP_BY_HOP, ...GATEWAY_OWNED_REQUEST]);

/**
 * The caller's request fields to send upstream: all but the hop-by-hop ones, those its Connection header
 * names and the gateway's own, as raw lines (`[name, value, name, value, ...]`, lower-cased names, repeated
 * fields kept apart), the form `http.request` writes as given, without building a header object first.
 */
export function forwardedRequestHeaders(rawHeaders: readonly string[], connectionNames: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase();
    if (NEVER_FORWARDED.has(name) || (connectionNames.length > 0 && connectionNames.includes(name))) continue;
    out.push(name, rawHeaders[i + 1]);
  }
  return out;
}

/**
 * The upstream's answer fields to pass to the caller: all but hop-by-hop and framing ones, those its
 * Connection header names, the origin-wide ones and any the gateway has set already (`request-id`,
 * the rate-limit headers). The caller also gets PASSED_THROUGH_ANSWER_HEADERS, set by the forwarder.
 */
export function passedAnswerHeaders(rawHeaders: readonly string[], alreadySet: (name: string) => boolean): OutgoingHttpHeaders {
  const connectionNames = collect(rawHeaders, (name) => name === 'connection').connection;
  const named = new Set(
    [connectionNames ?? []]
      .flat()
      .flatMap((v) => String(v).split(','))
      .map((t) => t.trim().toLowerCase()),
  );
  return collect(rawHeaders, (name) => !HOP_BY_HOP.has(name) && !ANSWER_FRAMING.has(name) && !ORIGIN_WIDE_ANSWER.has(name) && !named.has(name) && !alreadySet(name) && !Object.hasOwn(PASSED_THROUGH_ANSWER_HEADERS, name));
}

/** Raw header lines, lower-cased names, repeated fields kept as arrays, filtered by name. */
function collect(rawHeaders: readonly string[], keep: (name: string) => boolean): Record<string, string[]> {
  const out: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase();
    if (!keep(name)) continue;
    (out[name] ??= []).push(rawHeaders[i + 1]);
  }
  return out;
}
