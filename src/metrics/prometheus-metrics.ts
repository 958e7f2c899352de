import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Metrics } from './metrics';

/** One queue as the scrape sees it (JobQueue.stats). */
export type QueueStat = { name: string; queued: number; active: number; oldestQueuedSeconds: number | null };

/** Read at scrape time, so nothing polls between scrapes. */
export type ScrapeSources = {
  queues: () => Promise<QueueStat[]>;
  /** Seconds since each sanctions list in force was loaded or confirmed current; null for a list never loaded. */
  sanctionsListAges: () => Record<string, number | null>;
};

const PREFIX = 'ivs_';
/** Request and check durations: from a cached read (ms) to a slow upload or a model's first load (a minute). */
const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Webhook lag: from an immediate attempt to the last retries of the schedule (10 h). */
const LAG_BUCKETS = [0.1, 0.5, 1, 5, 30, 60, 300, 1800, 7200, 36_000];
const BYTE_BUCKETS = [16_384, 65_536, 262_144, 1_048_576, 4_194_304, 16_777_216, 67_108_864];

/**
 * The process's Prometheus registry (prom-client) and every metric in docs/operations.md. One per
 * container, never prom-client's global registry, so two servers in one process (tests, benches)
 * never count into each other.
 */
export class PrometheusMetrics implements Metrics {
  readonly registry = new Registry();
  private readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  private readonly checkDuration: Histogram<'check' | 'engine' | 'verdict'>;
  private readonly webhookLag: Histogram<'outcome'>;
  private readonly webhookFailures: Counter;
  private readonly uploadBytes: Histogram<'outcome'>;
  private readonly uploadDuration: Histogram<'outcome'>;
  private readonly refusals: Counter<'bucket'>;

  constructor(sources: ScrapeSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: PREFIX });
    this.httpDuration = new Histogram({ name: `${PREFIX}http_request_duration_seconds`, help: 'HTTP requests by route template, method and status', labelNames: ['method', 'route', 'status'], buckets: SECONDS_BUCKETS, registers });
    this.checkDuration = new Histogram({ name: `${PREFIX}check_duration_seconds`, help: 'Live check engine calls by check, engine and verdict', labelNames: ['check', 'engine', 'verdict'], buckets: SECONDS_BUCKETS, registers });
    this.webhookLag = new Histogram({ name: `${PREFIX}webhook_delivery_lag_seconds`, help: 'From an event\'s creation to the start of each delivery attempt, by outcome', labelNames: ['outcome'], buckets: LAG_BUCKETS, registers });
    this.webhookFailures = new Counter({ name: `${PREFIX}webhook_delivery_failures_total`, help: 'Webhook delivery attempts that failed (error, timeout or non-2xx)', registers });
    this.uploadBytes = new Histogram({ name: `${PREFIX}upload_bytes`, help: 'Sizes of stored hosted uploads', labelNames: ['outcome'], buckets: BYTE_BUCKETS, registers });
    this.uploadDuration = new Histogram({ name: `${PREFIX}upload_duration_seconds`, help: 'Hosted upload durations (body received, encrypted and stored), by outcome', labelNames: ['outcome'], buckets: SECONDS_BUCKETS, registers });
    this.refusals = new Counter({ name: `${PREFIX}rate_limit_refusals_total`, help: 'Requests and subscriptions refused by the rate limiter, by bucket', labelNames: ['bucket'], registers });

    const depth = new Gauge({ name: `${PREFIX}job_queue_depth`, help: 'Jobs waiting in each queue (created or retry, start time reached or not)', labelNames: ['queue'], registers });
    const active = new Gauge({ name: `${PREFIX}job_queue_active`, help: 'Jobs being worked in each queue', labelNames: ['queue'], registers });
    const oldest = new Gauge({
      name: `${PREFIX}job_queue_oldest_age_seconds`,
      help: 'Age of the oldest job in each queue that is due and not yet started (0 when none)',
      labelNames: ['queue'],
      registers,
      // One query per scrape for every queue (JobQueue.stats); the depth gauges are set from the same answer.
      async collect() {
        const stats = await sources.queues();
        depth.reset();
        active.reset();
        this.reset();
        for (const q of stats) {
          depth.set({ queue: q.name }, q.queued);
          active.set({ queue: q.name }, q.active);
          this.set({ queue: q.name }, q.oldestQueuedSeconds ?? 0);
        }
      },
    });
    void oldest;
    new Gauge({
      name: `${PREFIX}sanctions_list_age_seconds`,
      help: 'Seconds since each sanctions list in force was loaded or confirmed current (absent: never loaded)',
      labelNames: ['list'],
      registers,
      collect() {
        this.reset();
        for (const [list, age] of Object.entries(sources.sanctionsListAges())) if (age !== null) this.set({ list }, age);
      },
    });
  }

  httpRequest(method: string, route: string, status: number | 'aborted', seconds: number): void {
    this.httpDuration.observe({ method, route, status: String(status) }, seconds);
  }

  checkRan(check: string, engine: string, verdict: string, seconds: number): void {
    this.checkDuration.observe({ check, engine, verdict }, seconds);
  }

  webhookAttempted(outcome: 'succeeded' | 'failed', lagSeconds: number): void {
    this.webhookLag.observe({ outcome }, Math.max(0, lagSeconds));
    if (outcome === 'failed') this.webhookFailures.inc();
  }

  uploadFinished(outcome: 'stored' | 'refused', bytes: number, seconds: number): void {
    if (outcome === 'stored') this.uploadBytes.observe({ outcome }, bytes);
    this.uploadDuration.observe({ outcome }, seconds);
  }

  rateLimitRefused(bucket: string): void {
    this.refusals.inc({ bucket });
  }

  /** The exposition text and its content type, for GET /metrics. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
