/** Retry-After as delay-seconds or an HTTP date; anything else is ignored. */
export function parseRetryAfter(value: string | string[] | undefined, now: number = Date.now()): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return null;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1_000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
