import type { Metrics } from '../metrics/metrics';
import type { CheckProviders, ProviderResult } from './check-providers';

/**
 * The same engines, each call timed into `metrics` by check, engine and verdict. A call that throws
 * is counted as `error` and rethrown: the check pipeline decides what a throw means.
 */
export function measuredCheckProviders<P extends CheckProviders>(providers: P, engines: { document: string; faceMatch: string; liveness: string; antiSpoof: string }, metrics: Metrics): P {
  const timed = async <R extends ProviderResult>(check: string, engine: string, call: () => Promise<R>): Promise<R> => {
    const started = performance.now();
    try {
      const r = await call();
      metrics.checkRan(check, engine, r.verdict, (performance.now() - started) / 1000);
      return r;
    } catch (err) {
      metrics.checkRan(check, engine, 'error', (performance.now() - started) / 1000);
      throw err;
    }
  };
  const { documentReader, faceMatcher, livenessVerifier, presentationAttackDetector } = providers;
  const forOneRun = providers.forOneRun;
  return {
    ...providers,
    ...(forOneRun ? { forOneRun: () => measuredCheckProviders(forOneRun.call(providers), engines, metrics) } : {}),
    documentReader: { read: (input) => timed('document_ocr', engines.document, () => documentReader.read(input)) },
    faceMatcher: { match: (input) => timed('face_match', engines.faceMatch, () => faceMatcher.match(input)) },
    livenessVerifier: { verify: (input) => timed('liveness', engines.liveness, () => livenessVerifier.verify(input)) },
    presentationAttackDetector: { detect: (input) => timed('anti_spoof', engines.antiSpoof, () => presentationAttackDetector.detect(input)) },
  };
}
