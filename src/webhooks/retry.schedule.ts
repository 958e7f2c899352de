/** Attempts per delivery, the first included (docs/webhooks.md, "Retries, disabling, replay"). */
export const MAX_ATTEMPTS = 8;

/**
 * Upper bound of the wait after attempt n (index n - 1), in seconds. The wait is drawn uniformly
 * from [0, cap] (full jitter), so retries of many deliveries that failed together spread out
 * instead of arriving in waves. The first retry comes within a minute; the expected span of all
 * eight attempts is about 3 days (the sum of caps / 2), the longest about 6.
 */
export const RETRY_CAPS_SECONDS = [60, 600, 3_600, 6 * 3_600, 18 * 3_600, 48 * 3_600, 72 * 3_600] as const;

/** An endpoint whose attempts have all failed for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 3 * 24 * 3_600 * 1_000;

/** Longest Retry-After we honour; a receiver cannot park a delivery for longer. */
export const MAX_RETRY_AFTER_MS = 72 * 3_600 * 1_000;

export type RetryScheduleOptions = {
  /** Multiplies the caps (WEBHOOK_RETRY_SCALE, test only). Retry-After is not scaled: it is the receiver's own ask. */
  scale?: number;
  /** From the receiver's Retry-After header, if any. */
  retryAfterMs?: number | null;
  random?: () => number;
};

/** Milliseconds to wait after the failed `attempt` before the next, or null when it was the last. */
export function retryDelayMs(attempt: number, opts: RetryScheduleOptions = {}): number | null {
  if (attempt >= MAX_ATTEMPTS) return null;
  const cap = RETRY_CAPS_SECONDS[Math.max(0, attempt - 1)] * 1_000 * (opts.scale ?? 1);
  const jittered = Math.floor((opts.random ?? Math.random)() * cap);
  const asked = opts.retryAfterMs == null ? 0 : Math.min(opts.retryAfterMs, MAX_RETRY_AFTER_MS);
  return Math.max(jittered, asked);
}
