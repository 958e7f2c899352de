import type { ModelRef, ProviderResult } from '../check-providers';

/**
 * Runs one managed-service call with a deadline. Any failure (timeout, throttling, a 4xx/5xx, a network
 * error) becomes the check's `error`: a managed service that did not answer never passes a check.
 */
export async function awsCall<T>(timeoutMs: number, model: ModelRef, call: (signal: AbortSignal) => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; result: ProviderResult }> {
  try {
    return { ok: true, value: await call(AbortSignal.timeout(timeoutMs)) };
  } catch (e) {
    const name = e instanceof Error ? e.name : 'Error';
    const timedOut = name === 'TimeoutError' || name === 'AbortError';
    const reason = timedOut
      ? `${model.model} did not answer within ${timeoutMs} ms.`
      : `${model.model} failed: ${name}${e instanceof Error && e.message ? ` (${e.message.slice(0, 200)})` : ''}.`;
    return { ok: false, result: { verdict: 'error', reason, model } };
  }
}

export type AwsSettings = { region: string | undefined; endpoint: string | undefined; timeoutMs: number };

/** Client options shared by the adapters: region (default us-east-1), an endpoint override, bounded retries. */
export function clientOptions(s: AwsSettings) {
  return {
    region: s.region ?? 'us-east-1',
    ...(s.endpoint ? { endpoint: s.endpoint } : {}),
    maxAttempts: 2,
    requestHandler: { requestTimeout: s.timeoutMs, connectionTimeout: Math.min(s.timeoutMs, 3000) },
  };
}
