import type { CheckProviders } from '../check-providers';
import type { AwsSettings } from './aws-call';
import type { createAwsProviders } from './aws-providers';

type AwsProviders = ReturnType<typeof createAwsProviders>;

/**
 * The managed adapters of src/checks/aws/aws-providers.ts, with the AWS SDK loaded on their first call:
 * its Rekognition and Textract clients were some 60 ms of every server's start (docs/benchmarks.md,
 * "Server start-up"), spent even where no session ever reaches a check. The clients are made once, on
 * that call, exactly as the eager version made them.
 */
export function lazyAwsProviders(settings: AwsSettings): Omit<CheckProviders, 'forOneRun'> & { close(): void } {
  let loading: Promise<AwsProviders> | undefined;
  const aws = () => (loading ??= import('./aws-providers.js').then((m) => m.createAwsProviders(settings)));
  return {
    documentReader: { read: async (input) => (await aws()).documentReader.read(input) },
    faceMatcher: { match: async (input) => (await aws()).faceMatcher.match(input) },
    livenessVerifier: { verify: async (input) => (await aws()).livenessVerifier.verify(input) },
    presentationAttackDetector: { detect: async (input) => (await aws()).presentationAttackDetector.detect(input) },
    close: () => void loading?.then((a) => a.close(), () => undefined),
  };
}
