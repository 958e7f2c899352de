/** The most a status list token may weigh: lists are compressed bit arrays, a few KiB in practice. */
const MAX_BYTES = 1_000_000;

/**
 * Fetches a Token Status List by its URI (https only, a few seconds, a size cap). Any failure throws, and
 * the SD-JWT VC verifier turns that into `status_unavailable`: a list the service cannot read is an
 * error, never a pass. The URI comes from the credential, inside the issuer's signature, so only a trusted
 * issuer chooses where the service connects.
 */
export function httpStatusListFetcher(timeoutMs = 5_000): (uri: string) => Promise<string> {
  return async (uri) => {
    const url = new URL(uri);
    if (url.protocol !== 'https:') throw new Error('status list URIs must be https');
    const response = await fetch(url, { headers: { accept: 'application/statuslist+jwt' }, redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) throw new Error(`status list answered ${response.status}`);
    const length = Number(response.headers.get('content-length') ?? 0);
    if (length > MAX_BYTES) throw new Error('status list too large');
    const text = await response.text();
    if (text.length > MAX_BYTES) throw new Error('status list too large');
    return text;
  };
}

/**
 * Fetches a CRL (DER) named by a trusted IACA's CRL distribution points: http or https (CRLs are signed and
 * commonly served over plain http), a few seconds, a size cap. Any failure throws, and the mdoc verifier
 * turns that into `revocation_unavailable`: the check is an error, never a pass.
 */
export function httpCrlFetcher(timeoutMs = 5_000, maxBytes = 10_000_000): (uri: string) => Promise<Uint8Array> {
  return async (uri) => {
    const url = new URL(uri);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('CRL URIs must be http(s)');
    const response = await fetch(url, { headers: { accept: 'application/pkix-crl' }, redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) throw new Error(`CRL answered ${response.status}`);
    if (Number(response.headers.get('content-length') ?? 0) > maxBytes) throw new Error('CRL too large');
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.length > maxBytes) throw new Error('CRL too large');
    return bytes;
  };
}

/** Fetches an mdoc's Token Status List as CWT (https only, like the JWT lists), as bytes. */
export function httpStatusListCwtFetcher(timeoutMs = 5_000): (uri: string) => Promise<Uint8Array> {
  return async (uri) => {
    const url = new URL(uri);
    if (url.protocol !== 'https:') throw new Error('status list URIs must be https');
    const response = await fetch(url, { headers: { accept: 'application/statuslist+cwt' }, redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) throw new Error(`status list answered ${response.status}`);
    if (Number(response.headers.get('content-length') ?? 0) > MAX_BYTES) throw new Error('status list too large');
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.length > MAX_BYTES) throw new Error('status list too large');
    return bytes;
  };
}
