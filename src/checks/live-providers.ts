import type { Logger } from 'pino';
import type { CheckEngineChoice, ChecksConfig } from '../config';
import type { CheckProviders, DocumentReader, FaceMatcher, LivenessVerifier, ModelRef, PresentationAttackDetector, ProviderResult } from './check-providers';
import { CheckEnginesBusyError, CheckWorkerPool } from './check-worker.pool';
import type { CheckTaskKind, CheckTaskMap } from './check-task';
import { MRZ_OCR_MODEL } from './engines/mrz-ocr';
import { HUMAN_FACE_MODEL } from './engines/human-face.analyzer';
import { createAwsProviders } from './aws/aws-providers';

const EMBEDDED_ANTI_SPOOF_MODEL: ModelRef = { provider: 'embedded', model: 'human-antispoof', version: '3.3.6' };
const SWITCHED_OFF: ModelRef = { provider: 'off', model: 'none', version: '0' };

/** What `/healthz` says of the engines: the choice per check, and whether the offline models are loaded. */
export type CheckEnginesHealth = {
  document: CheckEngineChoice;
  face_match: CheckEngineChoice;
  liveness: CheckEngineChoice;
  anti_spoof: CheckEngineChoice;
  /** `idle` until the first live check needs the embedded models (they load then, once), `none` when no check uses them. */
  embedded_models: 'none' | 'idle' | 'loading' | 'ready' | 'failed';
  embedded_workers?: number;
};

export type LiveCheckProviders = CheckProviders & { health(): CheckEnginesHealth; close(): Promise<void> };

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
async function pooled<K extends CheckTaskKind>(pool: LazyPool, kind: K, input: CheckTaskMap[K]['input'], model: ModelRef): Promise<CheckTaskMap[K]['output']> {
  try {
    return await (await pool.get()).run(kind, input);
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
 * answers `error` with the reason. Built once, in the composition root (src/container.ts). `close()` stops
 * the pool.
 */
export function createLiveCheckProviders(config: ChecksConfig, logger: Logger): LiveCheckProviders {
  const e = config.engines;
  const choices = [e.document, e.faceMatch, e.liveness, e.antiSpoof];
  const pool = choices.includes('embedded') ? new LazyPool(config, logger) : undefined;
  const aws = choices.includes('aws') ? createAwsProviders(config.aws) : undefined;

  const documentReader: DocumentReader =
    e.document === 'aws' ? aws!.documentReader : e.document === 'off' ? { read: async () => switchedOff('document', 'CHECK_DOCUMENT_ENGINE') } : { read: (input) => pooled(pool!, 'document', input, MRZ_OCR_MODEL) };
  const faceMatcher: FaceMatcher =
    e.faceMatch === 'aws' ? aws!.faceMatcher : e.faceMatch === 'off' ? { match: async () => switchedOff('face match', 'CHECK_FACE_MATCH_ENGINE') } : { match: (input) => pooled(pool!, 'face', input, HUMAN_FACE_MODEL) };
  const livenessVerifier: LivenessVerifier =
    e.liveness === 'aws' ? aws!.livenessVerifier : e.liveness === 'off' ? { verify: async () => switchedOff('liveness', 'CHECK_LIVENESS_ENGINE') } : { verify: (input) => pooled(pool!, 'liveness', input, HUMAN_FACE_MODEL) };
  const presentationAttackDetector: PresentationAttackDetector =
    e.antiSpoof === 'aws'
      ? aws!.presentationAttackDetector
      : e.antiSpoof === 'off'
        ? { detect: async () => switchedOff('anti-spoof', 'CHECK_ANTI_SPOOF_ENGINE') }
        : { detect: (input) => pooled(pool!, 'antiSpoof', input, EMBEDDED_ANTI_SPOOF_MODEL) };

  return {
    documentReader,
    faceMatcher,
    livenessVerifier,
    presentationAttackDetector,
    health: () => ({
      document: e.document,
      face_match: e.faceMatch,
      liveness: e.liveness,
      anti_spoof: e.antiSpoof,
      embedded_models: pool ? pool.state : 'none',
      ...(pool?.size ? { embedded_workers: pool.size } : {}),
    }),
    close: async () => {
      await pool?.close();
      aws?.close();
    },
  };
}
