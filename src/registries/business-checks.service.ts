import type { CheckOutcome } from '../checks/check-providers';
import { REGISTRY_CHECKS, REGISTRY_NAMES, type BusinessRegistry, type RegistryAnswer, type RegistryName, type RegistryRecord } from './business-registry';
import type { RegistryCache } from './registry-cache';
import { compareAnswer, type BusinessSubmission } from './registry-comparison';
import { RegistryBusyError, type RegistryRateLimiter } from './registry-rate-limiter';
import { systemClock, type Clock } from '../clock';

export const REGISTRY_MODEL_VERSION = '1';

/** What one registry said, kept as the `registry_record` artifact: the normalized record and the raw body. */
export type RegistryEvidence = { registry: RegistryName; identifier: string; record: RegistryRecord | null; raw: string; content_type: string; retrieved_at: string; cached: boolean };

export type BusinessCheckRun = { outcomes: CheckOutcome[]; evidence: RegistryEvidence[] };

/**
 * The four T4 registry checks of one session, run together and all of them whatever the other checks
 * found (a reviewer sees every record). A registry whose identifier was not given is `skipped`; one
 * switched off or failing is `error`; a 429 from a registry, or our own budget spent for longer than a
 * check may wait, throws RegistryBusyError so the job queue runs the session's checks again later.
 */
export class BusinessChecksService {
  constructor(
    private readonly registries: Record<RegistryName, BusinessRegistry>,
    private readonly limiter: RegistryRateLimiter | null,
    private readonly cache: RegistryCache | null,
    private readonly now: Clock = systemClock,
  ) {}

  async run(submitted: BusinessSubmission, registries: Record<RegistryName, BusinessRegistry> = this.registries): Promise<BusinessCheckRun> {
    // Settled, not all: a run that must wait (RegistryBusyError) ends only once its other lookups have ended
    // (and their answers are cached), so its retry never races a lookup of its own still in flight.
    const settled = await Promise.allSettled(REGISTRY_NAMES.map((name) => this.one(name, submitted, registries[name])));
    const thrown = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (thrown) throw thrown.reason;
    const results = settled.map((r) => (r as PromiseFulfilledResult<Awaited<ReturnType<BusinessChecksService['one']>>>).value);
    return { outcomes: results.map((r) => r.outcome), evidence: results.flatMap((r) => (r.evidence ? [r.evidence] : [])) };
  }

  private async one(name: RegistryName, submitted: BusinessSubmission, registry: BusinessRegistry): Promise<{ outcome: CheckOutcome; evidence?: RegistryEvidence }> {
    const { check, field } = REGISTRY_CHECKS[name];
    const identifier = submitted[field];
    if (!identifier) return { outcome: { name: check, verdict: 'skipped', reason: `No ${REGISTRY_CHECKS[name].fieldLabel} was given, so ${REGISTRY_CHECKS[name].label} was not asked` } };
    let answer: RegistryAnswer | null = this.cache?.get(name, identifier) ?? null;
    const cached = !!answer;
    if (!answer) {
      await this.limiter?.acquire(name);
      answer = await registry.lookup(identifier);
      if (answer.kind === 'rate_limited') throw new RegistryBusyError(`${answer.reason}; retried later${answer.retryAfterMs !== null ? ` (Retry-After ${answer.retryAfterMs} ms)` : ''}`, answer.retryAfterMs ?? 30_000);
      this.cache?.put(name, identifier, answer);
    }
    const v = compareAnswer(name, submitted, answer);
    const outcome: CheckOutcome = { name: check, verdict: v.verdict, reason: v.reason, details: v.details, source: `registry/${name}@${REGISTRY_MODEL_VERSION}`, ...(v.score !== undefined && v.verdict !== 'error' ? { score: v.score } : {}) };
    const raw = answer.kind === 'found' || answer.kind === 'not_found' ? answer : answer.kind === 'error' && answer.raw !== undefined ? answer : null;
    const evidence: RegistryEvidence | undefined = raw
      ? {
          registry: name,
          identifier,
          record: answer.kind === 'found' ? answer.record : null,
          raw: raw.raw!,
          content_type: raw.contentType ?? 'application/octet-stream',
          retrieved_at: answer.kind === 'found' ? answer.record.retrieved_at : this.now().toISOString(),
          cached,
        }
      : undefined;
    return { outcome, evidence };
  }
}
