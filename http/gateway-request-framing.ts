/**
 * How the gateway reads a caller's request framing (docs/gateway.md, "Framing"). Node's parser has
 * already split the caller's bytes into this request; the gateway then frames the upstream request
 * itself. What a proxy in front of us, or the upstream, could read differently is refused here, so no
 * caller can choose how another component splits the stream (request smuggling, docs/security.md).
 */

/** Methods whose requests carry no body here: one that does is ambiguous (a body-less reader takes it for the next request). */
const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT']);

/**
 * Fields that frame, route or identify a request: a `Connection` header naming one asks every hop
 * to drop it, which would let the caller unframe or re-address its request. Refused, not obeyed.
 */
const END_TO_END_FIELDS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'content-type',
  'content-encoding',
  'authorization',
  'cookie',
  'service-actor',
  'request-id',
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
]);

/** The body of an accepted request, as the gateway will frame it upstream. */
export type RequestBody = { kind: 'none' } | { kind: 'length'; bytes: number } | { kind: 'chunked' };

export type Framing = { ok: true; body: RequestBody; connectionNames: string[] } | { ok: false; reason: string };

/**
 * Reads the framing of a request from its raw header lines (`IncomingMessage.rawHeaders`, which keeps
 * repeated fields apart). Refused: Transfer-Encoding and Content-Length together; Transfer-Encoding
 * other than one `chunked`; more than one Content-Length or one that is not digits; a body on a method
 * that takes none; a Connection header naming a field in END_TO_END_FIELDS.
 */
export function requestFraming(method: string, rawHeaders: readonly string[]): Framing {
  const values = (name: string) => rawHeaders.filter((_, i) => i % 2 === 1 && rawHeaders[i - 1].toLowerCase() === name);
  const te = values('transfer-encoding');
  const cl = values('content-length');
  const connectionNames = values('connection')
    .flatMap((v) => v.split(','))
    .map((t) => t.trim().toLowerCase())
    .filter(Boolean);

  const named = connectionNames.find((n) => END_TO_END_FIELDS.has(n));
  if (named) return refuse(`The Connection header names ${named}, which frames, routes or identifies the request and is never dropped`);
  if (te.length > 0 && cl.length > 0) return refuse('A request has Transfer-Encoding or Content-Length, not both');
  if (te.length > 1 || (te.length === 1 && te[0].trim().toLowerCase() !== 'chunked')) return refuse('Transfer-Encoding must be given once, as "chunked"');
  if (cl.length > 1 || (cl.length === 1 && !/^\d{1,15}$/.test(cl[0].trim()))) return refuse('Content-Length must be given once, as a number of bytes');

  const body: RequestBody = te.length === 1 ? { kind: 'chunked' } : cl.length === 1 && Number(cl[0]) > 0 ? { kind: 'length', bytes: Number(cl[0]) } : { kind: 'none' };
  if (body.kind !== 'none' && BODYLESS_METHODS.has(method.toUpperCase())) return refuse(`A ${method.toUpperCase()} request has no body here`);
  return { ok: true, body, connectionNames };
}

function refuse(reason: string): Framing {
  return { ok: false, reason };
}
