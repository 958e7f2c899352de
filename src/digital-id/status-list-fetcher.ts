import { readCappedBody } from '../net/capped-body';
/** The most a status list token may weigh: lists are compressed bit arrays, a few KiB in practice. */
const MAX_BYTES = 1_000_000;

/**
 * GET `uri` on one of `protocols`, within `timeoutMs` and `maxBytes`, no redirect: the bytes, or a throw that
 * the verifiers turn into an error check (a list or CRL the service cannot read is never a pass).
 */
async function fetchCapped(uri: string, o: { what: string; accept: string; protocols: readonly string[]; timeoutMs: number; maxBytes: number }): Promise<Uint8Array> {
  const url = new URL(uri);
  if (!o.protocols.includes(url.protocol)) throw new Error(`${o.what} URIs must be ${o.protocols.map((p) => p.slice(0, -1)).join(' or ')}`);
  const response = await fetch(url, { headers: { accept: o.accept }, redirect: 'error', signal: AbortSignal.timeout(o.timeoutMs) });
  if (!response.ok) throw new Error(`${o.what} answered ${response.status}`);
  // Cut off as it streams: a list or CRL server that sends without end costs at most maxBytes of memory.
  return new Uint8Array(await readCappedBody(response, o.maxBytes));
}

/**
 * Fetches a Token Status List by its URI (https only, a few seconds, a size cap). Any failure throws, and
 * the SD-JWT VC verifier turns that into `status_unavailable`: a list the service cannot read is an
 * error, never a pass. The URI comes from the credential, inside the issuer's signature, so only a trusted
 * issuer chooses where the service connects.
 */
export function httpStatusListFetcher(timeoutMs = 5_000): (uri: string) => Promise<string> {
  return async (uri) => new TextDecoder().decode(await fetchCapped(uri, { what: 'status list', accept: 'application/statuslist+jwt', protocols: ['https:'], timeoutMs, maxBytes: MAX_BYTES }));
}

/**
 * Fetches a CRL (DER) named by a CRL distribution point of a validated chain (an IACA, an intermediate CA, a
 * document signer or SD-JWT VC issuer certificate): http or https (CRLs are signed and commonly served over
 * plain http), a few seconds, a size cap. Any failure throws, and the verifiers turn that into
 * `revocation_unavailable`: the check is an error, never a pass.
 */
export function httpCrlFetcher(timeoutMs = 5_000, maxBytes = 10_000_000): (uri: string) => Promise<Uint8Array> {
  return (uri) => fetchCapped(uri, { what: 'CRL', accept: 'application/pkix-crl', protocols: ['https:', 'http:'], timeoutMs, maxBytes });
}

/** Fetches an mdoc's Token Status List as CWT (https only, like the JWT lists), as bytes. */
export function httpStatusListCwtFetcher(timeoutMs = 5_000): (uri: string) => Promise<Uint8Array> {
  return (uri) => fetchCapped(uri, { what: 'status list', accept: 'application/statuslist+cwt', protocols: ['https:'], timeoutMs, maxBytes: MAX_BYTES });
}
