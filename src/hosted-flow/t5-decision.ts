import type { EntityManager } from 'typeorm';
import type { SessionEntity } from '../../entities';
import type { JobQueue } from '../jobs/job-queue';
import { RUN_CHECKS_JOB, RUN_CHECKS_RETRY, type RunChecksData } from '../sessions/session-queues';
import { HostedCaptureRepository } from './hosted-capture.repository';

/**
 * The one rule of a T5 session (docs/chip.md, "The route and what follows"): it is decided when both
 * its web captures are submitted and its chip is stored, whichever arrives last. Both writers (the
 * page's submit or app handoff, and the chip route) ask this under the session's row lock, so
 * exactly one of them finds both halves and queues the checks.
 */
export class T5DecisionGate {
  constructor(private readonly captures: HostedCaptureRepository) {}

  /** The chip is being stored on the locked session: the pair is complete if the page's captures are submitted. */
  async completedByChip(m: EntityManager, s: SessionEntity): Promise<boolean> {
    return Boolean((await this.captures.find(s.id, m))?.submittedAt);
  }

  /** The page's captures are being submitted on the locked session: the pair is complete if the chip is stored (other tiers need nothing more). */
  completedByCaptures(s: SessionEntity): boolean {
    return s.tier !== 'T5' || hasChip(s);
  }
}

export const hasChip = (s: Pick<SessionEntity, 'result'>): boolean => Boolean(s.result?.chip);

/** The check pipeline for a session, queued in the caller's transaction so it commits with the move to `processing`. */
export async function queueChecks(jobs: Pick<JobQueue, 'send'>, m: EntityManager, sessionId: string): Promise<void> {
  await jobs.send(RUN_CHECKS_JOB, { sessionId } satisfies RunChecksData, { singletonKey: `checks:${sessionId}`, retry: RUN_CHECKS_RETRY, within: m });
}
