import { BodyTooLargeError, readCappedBody } from '../net/capped-body';
import { parseRetryAfter } from '../net/retry-after';
import { requestOf } from '../net/configured-url';

/** What one HTTP call to a registry returned, before any parsing (a non-2xx body is never parsed as JSON). */
export type RegistryResponse = { status: number; body: string; contentType: string; retryAfterMs: number | null; url: string };

export class RegistryUnreachableError extends Error {}

/** Default per call: the 5 s, after which the check is an `error`. */
export const REGISTRY_TIMEOUT_MS = 5000;
/** A registry body larger than this is refused (the records are a few KiB; SEC submissions reach ~1 MiB). */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

/**
 * GET `url` with `headers`, failing after `timeoutMs` (connection and body together). Throws
 * RegistryUnreachableError on a timeout, a refused connection or an oversized body.
 */
export async function registryGet(url: string, headers: Record<string, string>, timeoutMs = REGISTRY_TIMEOUT_MS): Promise<RegistryResponse> {
  try {
    // A base URL with a user and password (a private mirror) sends them as Basic auth: the URL kept as evidence carries neither.
    const request = requestOf(url, headers);
    const res = await fetch(request.url, { headers: request.headers, signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
    const body = (await readCappedBody(res, MAX_BODY_BYTES)).toString('utf8');
    return { status: res.status, body, contentType: res.headers.get('content-type') ?? '', retryAfterMs: parseRetryAfter(res.headers.get('retry-after') ?? undefined), url: request.url };
  } catch (err) {
    if (err instanceof BodyTooLargeError) throw new RegistryUnreachableError(err.message);
    const name = (err as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError') throw new RegistryUnreachableError(`no answer within ${Math.round(timeoutMs / 100) / 10} s`);
    // The cause's code only (ECONNREFUSED, ENOTFOUND): fetch's messages can quote the address, and this reason reaches the tenant.
    const code = (err as { cause?: { code?: unknown } }).cause?.code;
    throw new RegistryUnreachableError(`it could not be reached (${typeof code === 'string' ? code : (err as Error).name})`);
  }
}

/** The registry's response, or the `error` answer naming the registry when it could not be reached. */
export async function registryGetOrError(label: string, url: string, headers: Record<string, string>, timeoutMs?: number): Promise<RegistryResponse | { kind: 'error'; reason: string }> {
  try {
    return await registryGet(url, headers, timeoutMs);
  } catch (err) {
    if (!(err instanceof RegistryUnreachableError)) throw err;
    return { kind: 'error', reason: `${label}: ${err.message}` };
  }
}

/** The answer of a status the adapter does not map itself: 429 waits, 5xx and anything else is an error. */
export function unexpectedStatus(label: string, r: RegistryResponse): { kind: 'rate_limited'; retryAfterMs: number | null; reason: string } | { kind: 'error'; reason: string; raw: string; contentType: string } {
  if (r.status === 429) return { kind: 'rate_limited', retryAfterMs: r.retryAfterMs, reason: `${label} answered 429 Too Many Requests` };
  return { kind: 'error', reason: `${label} answered HTTP ${r.status}`, raw: r.body.slice(0, 4096), contentType: r.contentType };
}

export const parseJson = (body: string): unknown => {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
};

export const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
