import type { SendOptions as PgBossSendOptions } from 'pg-boss';

/**
 * How pg-boss retries a job that threw (or whose worker died). The wait before retry n is
 * `delaySeconds`, or with `backoff` drawn from [delay * 2^(n-1), delay * 2^n], never above
 * `maxDelaySeconds`. Delays are multiplied by JOB_RETRY_SCALE (tests only) and are whole seconds,
 * at least 1: pg-boss stores them as integers.
 */
export type RetryPolicy = {
  /** Retries after the first run (pg-boss `retryLimit`); 0: a failed run is final. */
  limit: number;
  delaySeconds: number;
  backoff?: boolean;
  maxDelaySeconds?: number;
};

/** The retry policy of a queue whose sender names none (pg-boss's own default is 2 retries back to back). */
export const DEFAULT_RETRY: RetryPolicy = { limit: 2, delaySeconds: 10, backoff: true, maxDelaySeconds: 300 };

export type PgBossRetryOptions = Required<Pick<PgBossSendOptions, 'retryLimit' | 'retryDelay' | 'retryBackoff'>> & Pick<PgBossSendOptions, 'retryDelayMax'>;

/**
 * Our names mapped one by one onto pg-boss's (`retryLimit`, `retryDelay`, `retryBackoff`,
 * `retryDelayMax`): no spread, so an option pg-boss does not know cannot slip through unread.
 */
export function pgBossRetryOptions(policy: RetryPolicy, scale: number): PgBossRetryOptions {
  const seconds = (s: number): number => Math.max(1, Math.round(s * scale));
  return {
    retryLimit: policy.limit,
    retryDelay: seconds(policy.delaySeconds),
    retryBackoff: policy.backoff ?? false,
    ...(policy.maxDelaySeconds === undefined ? {} : { retryDelayMax: seconds(policy.maxDelaySeconds) }),
  };
}

