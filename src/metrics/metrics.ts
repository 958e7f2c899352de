/**
 * What the domain reports to the operator's metrics (docs/operations.md, "Metrics"). Services take
 * this port, never prom-client: the Prometheus registry lives in PrometheusMetrics, built by the
 * container, and a service built without one (unit tests, the CLI) reports to NO_METRICS.
 */
export interface Metrics {
  /** One live check engine (`engine`: embedded, aws, off) answered `check` (or threw: verdict `error`) after `seconds`. */
  checkRan(check: string, engine: string, verdict: string, seconds: number): void;
  /** One webhook delivery attempt ended; `lagSeconds` is from the event's creation to the attempt's start. */
  webhookAttempted(outcome: 'succeeded' | 'failed', lagSeconds: number): void;
  /** One hosted upload was stored (`bytes` as received), or refused (`bytes` 0), after `seconds`. */
  uploadFinished(outcome: 'stored' | 'refused', bytes: number, seconds: number): void;
  /** A request or subscription was refused by the rate limiter's `bucket`. */
  rateLimitRefused(bucket: string): void;
}

export const NO_METRICS: Metrics = {
  checkRan: () => undefined,
  webhookAttempted: () => undefined,
  uploadFinished: () => undefined,
  rateLimitRefused: () => undefined,
};
