import type { SessionEntity } from '../../entities';
import type { Actor } from '../auth/actor';
import { DomainError, notFound } from '../errors';
import type { SessionService } from '../sessions/session.service';
import type { JobQueue } from '../jobs/job-queue';
import { hasChip, queueChecks, type T5DecisionGate } from '../hosted-flow/t5-decision';
import type { EvidenceVault } from '../vault/evidence-vault';
import { storeChipEvidence } from './chip-evidence';
import { chipCheckFromVerdicts } from './chip-check.factory';
import { chipBlock, chipOnlyResult } from './chip-result';
import { decodeChipSubmission } from './chip-submission.decoder';
import { ChipInputError, isChipInputError } from './chip.errors';
import type { CscaTrustStore } from './csca.trust-store';
import { verifyPassiveAuthentication } from './passive-authentication.verifier';
import { systemClock, type Clock } from '../clock';

const ACCEPTING: readonly string[] = ['created', 'in_progress'];

/**
 * `POST /v1/verify/sessions/{id}/chip`: the mobile SDK sends what it read from the passport chip;
 * the service runs ICAO 9303 Passive Authentication and records the outcome on the session.
 *
 * What happens next (docs/chip.md, "The route and what follows"): the chip result is stored on the
 * session and what the decision compares (DG1's MRZ, DG2's portrait) in the vault. The session is
 * decided with the page's captures, in one run of the checks, by the T5 rule (T5DecisionGate): if
 * the captures are already submitted, it goes to `processing` and the checks are queued now;
 * otherwise it stays `in_progress` until the page submits them.
 */
export class ChipSubmissionService {
  constructor(
    private readonly sessions: SessionService,
    private readonly trustStore: CscaTrustStore,
    private readonly vault: EvidenceVault,
    private readonly gate: T5DecisionGate,
    private readonly jobs: Pick<JobQueue, 'send'>,
    private readonly now: Clock = systemClock,
  ) {}

  async submit(actor: Actor | null, sessionId: string, body: unknown): Promise<SessionEntity> {
    if (!actor) throw new DomainError('unauthorized', 'Missing or invalid credential');
    // The chip is read on the end user's device; only that session's client_secret may send it.
    if (actor.kind !== 'session_client') {
      throw new DomainError('insufficient_scope', "Chip data is sent by the mobile SDK with the session's client_secret; tenant API keys cannot submit it");
    }
    if (actor.sessionId !== sessionId) throw notFound();
    const session = await this.sessions.get(actor, sessionId);
    if (session.tier !== 'T5') throw new DomainError('invalid_state', `Chip data is accepted only for T5 sessions; this session is ${session.tier}`);
    if (!ACCEPTING.includes(session.status)) {
      throw new DomainError('invalid_state', `Chip data is accepted while a session is created or in_progress; this one is ${session.status}`);
    }
    if (hasChip(session)) throw new DomainError('invalid_state', 'Chip data was already submitted for this session');

    const submission = asDomain(() => decodeChipSubmission(body));
    const submittedAt = this.now();
    const pa = await verifyPassiveAuthentication({ sod: submission.sod, dataGroups: submission.dataGroups, trustStore: this.trustStore, now: submittedAt }).catch(
      (error: unknown) => {
        throw toDomainError(error);
      },
    );
    const check = chipCheckFromVerdicts(pa.verdicts);
    const block = chipBlock(pa, check, submittedAt);
    // Stored before the chip result commits, so the checks the commit may queue always find it.
    await storeChipEvidence(this.vault, session, submission.dataGroups, pa, submittedAt);
    return this.sessions.attachChipResult(
      sessionId,
      () => chipOnlyResult(block, check),
      (m, s) => this.gate.completedByChip(m, s),
      (m, s) => queueChecks(this.jobs, m, s.id),
    );
  }
}

function asDomain<T>(action: () => T): T {
  try {
    return action();
  } catch (error) {
    throw toDomainError(error);
  }
}

/** Chip input faults are the client's: a 400 naming the field, or a 413; never a 500. */
function toDomainError(error: unknown): unknown {
  if (!isChipInputError(error)) return error;
  const e: ChipInputError = error;
  if (e.code === 'payload_too_large') return new DomainError('payload_too_large', e.message);
  if (e.code === 'data_group_not_allowed') return new DomainError('data_group_not_allowed', e.message);
  if (e.code === 'malformed_sod') return new DomainError('invalid_request', `sod is not a readable ICAO 9303 EF.SOD: ${e.message}`);
  return new DomainError('invalid_request', e.message);
}
