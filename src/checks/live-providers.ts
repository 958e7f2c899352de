import type { Logger } from 'pino';
import type { CheckEngineChoice, ChecksConfig } from './checks-config';
import type { CheckProviders, ModelRef, ProviderResult } from './check-providers';
import { CheckEnginesBusyError, CheckWorkerPool } from './check-worker.pool';
import type { CheckRun, CheckTaskKind, CheckTaskMap } from './check-task';
import { EMBEDDED_ANTI_SPOOF_MODEL, HUMAN_FACE_MODEL, MRZ_OCR_MODEL } from './engines/embedded-models';
import { lazyAwsProviders } from './aws/lazy-aws-providers';

const SWITCHED_OFF: ModelRef = { provider: 'off', model: 'none', version: '0' };

/** What `/healthz` says of the engines: the choice per check, and whether the offline models are loaded. */
export type CheckEnginesHealth = {
  document: CheckEngineChoice;
  face_match: CheckEngineChoice;
  liveness: CheckEngineChoice;
  anti_spoof: CheckEngineChoice;
  /**
   * `idle` until the first live check needs the embedded models (they load then, once), `none` when no check uses them,
   * `in_workers` on an instance that runs no checks (WORKER_ENABLED=false): the `npm run worker` processes load them.
   */
  embedded_models: 'none' | 'idle' | 'loading' | 'ready' | 'failed' | 'in_workers';
  embedded_workers?: number;
};

export type LiveCheckProviders = CheckProviders & {
  health(): CheckEnginesHealth;
  /** Loads the offline models now rather than on the first live check (a worker process, before it says it started). */
  warm(): Promise<void>;
  close(): Promise<void>;
};

/**
 * The worker-thread pool of the offline engines, started on the first live check that needs it.
 * Starting at boot would make every process (API instances, tests, the CLI's server) load ~300 MB
 * of models per worker before it answers; on first use, the jobs that arrive while the models load
 * wait for them (a check job is never failed because the models are not ready yet). A pool that
 * failed to start is tried again by the next check.
 */
class LazyPool {
  private starting?: Promise<CheckWorkerPool>;
  private pool?: CheckWorkerPool;
  private failed = false;
  private closed = false;

  constructor(
    private readonly config: ChecksConfig,
    private readonly logger: Logger,
  ) {}

  get state(): CheckEnginesHealth['embedded_models'] {
    if (this.pool) return 'ready';
    if (this.starting) return 'loading';
    return this.failed ? 'failed' : 'idle';
  }

  get size(): number | undefined {
    return this.pool?.size;
  }

  get(): Promise<CheckWorkerPool> {
    if (this.pool) return Promise.resolve(this.pool);
    this.starting ??= this.start();
    return this.starting;
  }

  private async start(): Promise<CheckWorkerPool> {
    const t = performance.now();
    try {
      const pool = await CheckWorkerPool.start({ workers: this.config.workers, queueLimit: this.config.queueLimit, timeoutMs: this.config.timeoutMs, logger: this.logger });
      if (this.closed) {
        await pool.close();
        throw new Error('The check engines were stopped.');
      }
      this.pool = pool;
      this.failed = false;
      this.logger.info({ workers: pool.size, ms: Math.round(performance.now() - t) }, 'check engines loaded');
      return pool;
    } catch (err) {
      this.failed = true;
      this.logger.error({ err }, 'check engines failed to start');
      throw err;
    } finally {
      this.starting = undefined;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const pool = this.pool ?? (await this.starting?.catch(() => undefined));
    await pool?.close();
  }
}

/**
 * Runs one engine call in the pool. A failure or timeout is the check's `error` (never a pass); a full
 * queue is thrown as CheckEnginesBusyError so the pipeline's job is retried later by the job queue.
 */
async function pooled<K extends CheckTaskKind>(pool: LazyPool | undefined, kind: K, input: CheckTaskMap[K]['input'], model: ModelRef, run?: CheckRun): Promise<CheckTaskMap[K]['output']> {
  try {
    if (!pool) throw new Error('this process runs no check engines (WORKER_ENABLED=false); the worker processes run the checks');
    return await (await pool.get()).run(kind, input, run);
  } catch (e) {
    if (e instanceof CheckEnginesBusyError) throw e;
    const error: ProviderResult = { verdict: 'error', reason: `The check engine failed: ${e instanceof Error ? e.message : String(e)}`, model };
    return error as CheckTaskMap[K]['output'];
  }
}

/** A check the operator switched off (`CHECK_*_ENGINE=off`): always `error`, so a person decides, and the reason says why. */
const switchedOff = (check: string, setting: string): ProviderResult => ({
  verdict: 'error',
  reason: `The ${check} check is switched off on this service (${setting}=off)`,
  model: SWITCHED_OFF,
});

/**
 * The engines of live sessions, chosen per check by configuration (docs/checks.md): `embedded` runs the
 * offline models in a worker-thread pool (started on first use), `aws` calls the managed services, `off`
 * answers `error` with the reason. Built once, in the composition root (app/container.ts). `close()` stops
 * the pool.
 */
export function createLiveCheckProviders(config: ChecksConfig, logger: Logger, opts: { runsChecks: boolean } = { runsChecks: true }): LiveCheckProviders {
  const e = config.engines;
  const choices = [e.document, e.faceMatch, e.liveness, e.antiSpoof];
  const embedded = choices.includes('embedded');
  // An instance that runs no check jobs (WORKER_ENABLED=false) never starts the pool: its engines are in the workers.
  const pool = embedded && opts.runsChecks ? new LazyPool(config, logger) : undefined;
  const aws = choices.includes('aws') ? lazyAwsProviders(config.aws) : undefined;

  /** The engines; `run`, for one session's run, carries the face analyses from one embedded check to the next. */
  const engines = (run?: CheckRun): CheckProviders => ({
    documentReader:
      e.document === 'aws' ? aws!.documentReader : e.document === 'off' ? { read: async () => switchedOff('document', 'CHECK_DOCUMENT_ENGINE') } : { read: (input) => pooled(pool, 'document', input, MRZ_OCR_MODEL, run) },
    faceMatcher:
      e.faceMatch === 'aws' ? aws!.faceMatcher : e.faceMatch === 'off' ? { match: async () => switchedOff('face match', 'CHECK_FACE_MATCH_ENGINE') } : { match: (input) => pooled(pool, 'face', input, HUMAN_FACE_MODEL, run) },
    livenessVerifier:
      e.liveness === 'aws' ? aws!.livenessVerifier : e.liveness === 'off' ? { verify: async () => switchedOff('liveness', 'CHECK_LIVENESS_ENGINE') } : { verify: (input) => pooled(pool, 'liveness', input, HUMAN_FACE_MODEL, run) },
    presentationAttackDetector:
      e.antiSpoof === 'aws'
        ? aws!.presentationAttackDetector
        : e.antiSpoof === 'off'
          ? { detect: async () => switchedOff('anti-spoof', 'CHECK_ANTI_SPOOF_ENGINE') }
          : { detect: (input) => pooled(pool, 'antiSpoof', input, EMBEDDED_ANTI_SPOOF_MODEL, run) },
  });

  return {
    ...engines(),
    // Each run its own record, dropped with it: no face analysis outlives the session's checks.
    forOneRun: () => engines({ faces: {}, startedAt: performance.now() }),
    health: () => ({
      document: e.document,
      face_match: e.faceMatch,
      liveness: e.liveness,
      anti_spoof: e.antiSpoof,
      embedded_models: pool ? pool.state : embedded ? 'in_workers' : 'none',
      ...(pool?.size ? { embedded_workers: pool.size } : {}),
    }),
    warm: async () => void (await pool?.get()),
    close: async () => {
      await pool?.close();
      aws?.close();
    },
  };
}
