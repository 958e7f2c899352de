import type { Logger } from 'pino';
import type { ChecksConfig } from '../config';
import type { CheckProviders, DocumentReader, FaceMatcher, LivenessVerifier, ModelRef, PresentationAttackDetector, ProviderResult } from './check-providers';
import { CheckEnginesBusyError, CheckWorkerPool } from './check-worker.pool';
import type { CheckTaskKind, CheckTaskMap } from './check-task';
import { MRZ_OCR_MODEL } from './engines/mrz-ocr';
import { HUMAN_FACE_MODEL } from './engines/human-face.analyzer';
import { createAwsProviders } from './aws/aws-providers';

const EMBEDDED_ANTI_SPOOF_MODEL: ModelRef = { provider: 'embedded', model: 'human-antispoof', version: '3.3.6' };

/**
 * Runs one engine call in the pool. A failure or timeout is the check's `error` (never a pass); a full
 * queue is thrown as CheckEnginesBusyError so the pipeline's job is retried later by the job queue.
 */
async function pooled<K extends CheckTaskKind>(pool: CheckWorkerPool, kind: K, input: CheckTaskMap[K]['input'], model: ModelRef): Promise<CheckTaskMap[K]['output']> {
  try {
    return await pool.run(kind, input);
  } catch (e) {
    if (e instanceof CheckEnginesBusyError) throw e;
    const error: ProviderResult = { verdict: 'error', reason: `The check engine failed: ${e instanceof Error ? e.message : String(e)}`, model };
    return error as CheckTaskMap[K]['output'];
  }
}

/**
 * The engines of live sessions, chosen per check by configuration (docs/checks.md): `embedded` runs the
 * offline models in a worker-thread pool (started only when some check uses it), `aws` calls the managed
 * services. `close()` stops the pool.
 */
export async function createLiveCheckProviders(config: ChecksConfig, logger: Logger): Promise<CheckProviders & { close(): Promise<void> }> {
  const e = config.engines;
  const needsPool = [e.document, e.faceMatch, e.liveness, e.antiSpoof].includes('embedded');
  const pool = needsPool ? await CheckWorkerPool.start({ workers: config.workers, queueLimit: config.queueLimit, timeoutMs: config.timeoutMs, logger }) : undefined;
  const needsAws = [e.document, e.faceMatch, e.liveness, e.antiSpoof].includes('aws');
  const aws = needsAws ? createAwsProviders(config.aws) : undefined;
  if (pool) logger.info({ workers: pool.size }, 'check worker pool started');

  const documentReader: DocumentReader = e.document === 'aws' ? aws!.documentReader : { read: (input) => pooled(pool!, 'document', input, MRZ_OCR_MODEL) };
  const faceMatcher: FaceMatcher = e.faceMatch === 'aws' ? aws!.faceMatcher : { match: (input) => pooled(pool!, 'face', input, HUMAN_FACE_MODEL) };
  const livenessVerifier: LivenessVerifier = e.liveness === 'aws' ? aws!.livenessVerifier : { verify: (input) => pooled(pool!, 'liveness', input, HUMAN_FACE_MODEL) };
  const presentationAttackDetector: PresentationAttackDetector =
    e.antiSpoof === 'aws' ? aws!.presentationAttackDetector : { detect: (input) => pooled(pool!, 'antiSpoof', input, EMBEDDED_ANTI_SPOOF_MODEL) };

  return {
    documentReader,
    faceMatcher,
    livenessVerifier,
    presentationAttackDetector,
    close: async () => {
      await pool?.close();
      aws?.close();
    },
  };
}
