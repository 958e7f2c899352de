import { IdvConnectionError, retryAfterSeconds } from './errors';

export type RetryOptions = {
  /** Retries after the first attempt, for a 429 and for a GET that got no answer. @default 2 */
  maxRetries: number;
  /**
   * A 429 whose `retry-after` is longer than this is not waited for: the caller gets the IdvRateLimitError at once.
   * The service's sliding 60 s window counts in 5 s slices, so it may ask for up to 65 s. @default 70
   */
  maxRetryAfterSeconds: number;
  /** First back-off after a network error, doubled each retry, with full jitter. @default 250 */
  backoffBaseMs: number;
  /** One attempt's time limit; a GET that runs out is retried. @default 60000 */
  timeoutMs: number;
  /** How the client waits (tests hand in their own clock). @default setTimeout */
  sleep: (ms: number) => Promise<void>;
};

export const DEFAULT_RETRY: RetryOptions = {
  maxRetries: 2,
  maxRetryAfterSeconds: 70,
  backoffBaseMs: 250,
  timeoutMs: 60_000,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * Only these are repeated after a failure without an answer: the request may have reached the service, and the
 * API has no Idempotency-Key, so a POST, PUT, PATCH or DELETE could act twice. A 429 is repeated for every
 * method: the service refused it before doing anything.
 */
const IDEMPOTENT = new Set(['GET', 'HEAD']);

/** A fetch for openapi-fetch that honours `retry-after` on 429 and retries idempotent requests on network errors. */
export function retryingFetch(baseFetch: (request: Request) => Promise<Response>, opts: RetryOptions): (request: Request) => Promise<Response> {
  return async (request) => {
    for (let attempt = 0; ; attempt++) {
      const retriesLeft = attempt < opts.maxRetries;
      // Each attempt sends a fresh copy (a body can be read once; one without a body needs no clone).
      const timeout = AbortSignal.timeout(opts.timeoutMs);
      const attemptRequest = new Request(request.body ? request.clone() : request, { signal: AbortSignal.any([request.signal, timeout]) });
      let response: Response;
      try {
        response = await baseFetch(attemptRequest);
      } catch (err) {
        if (request.signal.aborted) throw err; // the caller's own abort is not a failure to retry
        const timedOut = timeout.aborted;
        if (retriesLeft && IDEMPOTENT.has(request.method)) {
          await opts.sleep(Math.random() * opts.backoffBaseMs * 2 ** attempt);
          continue;
        }
        const what = timedOut ? `timed out after ${opts.timeoutMs} ms` : `failed: ${(err as Error).message}`;
        throw new IdvConnectionError(`${request.method} ${new URL(request.url).pathname} ${what}`, timedOut, { cause: err });
      }
      if (response.status !== 429 || !retriesLeft) return response;
      const wait = retryAfterSeconds(response);
      if (wait === null || wait > opts.maxRetryAfterSeconds) return response;
      await response.body?.cancel();
      await opts.sleep(wait * 1000);
    }
  };
}
