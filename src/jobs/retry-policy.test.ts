import { DEFAULT_RETRY, pgBossRetryOptions } from './retry-policy';

describe('pgBossRetryOptions', () => {
  it("maps our policy onto pg-boss's retry options, field by field", () => {
    expect(pgBossRetryOptions({ limit: 20, delaySeconds: 60, backoff: true, maxDelaySeconds: 3600 }, 1)).toEqual({
      retryLimit: 20,
      retryDelay: 60,
      retryBackoff: true,
      retryDelayMax: 3600,
    });
    expect(pgBossRetryOptions({ limit: 0, delaySeconds: 0 }, 1)).toEqual({ retryLimit: 0, retryDelay: 1, retryBackoff: false });
  });

  it('scales delays (JOB_RETRY_SCALE) to whole seconds, never below 1', () => {
    expect(pgBossRetryOptions({ limit: 3, delaySeconds: 60, backoff: true, maxDelaySeconds: 600 }, 0.1)).toMatchObject({ retryDelay: 6, retryDelayMax: 60 });
    expect(pgBossRetryOptions({ limit: 3, delaySeconds: 5 }, 0.01)).toMatchObject({ retryDelay: 1 });
  });

  it('gives queues without a policy of their own a waiting default', () => {
    expect(pgBossRetryOptions(DEFAULT_RETRY, 1)).toMatchObject({ retryBackoff: true, retryDelay: 10 });
  });
});
