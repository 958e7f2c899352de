import { withSubmittedChip } from '../chip/chip-result';
import { SessionService, TestModeStep } from '../sessions/session.service';
import { testModeResult, testOutcomeOf } from '../sessions/test-mode-outcome';
import { Tier } from '../sessions/tiers';
import { testIdentityOf, withSanctionsScreening } from '../sessions/sanctions-check';
import type { SanctionsScreeningService } from '../sanctions/screening.service';
import { SessionEntity } from '../../entities';
import type { SessionResult } from '../../entities/session-result.document';
import type { SessionStatus } from '../sessions/session-status';
import { DataSource } from 'typeorm';
import { automatedDecision } from '../sessions/decision-history';
import { TEST_MODE_POLICY_VERSION } from './decision-policy';
import type { BusinessDetails } from '../hosted-flow/business-identifiers';
import { testModeRegistryRun, withTestModeRegistries } from './test-mode-business';

export type TestModeAdvanceData = { sessionId: string; step: TestModeStep };

/**
 * Walks a test-mode session along the timeline of docs/api-behaviour.md, "Test mode". Steps may run late or out of order after a
 * restart, so each one first takes the earlier steps; steps that no longer apply are skipped. The clock runs whatever the
 * hosted page does (docs/decisions.md D22): the page cannot hold a test session back, it can only choose its `test_outcome`.
 */
export class TestModeAdvanceJob {
  constructor(
    private readonly db: DataSource,
    private readonly sessions: SessionService,
    private readonly sanctions?: SanctionsScreeningService,
    /** The business a T4 page gave (HostedCaptureRepository.tierDetails); without it the registry checks stay fixed. */
    private readonly businessOf?: (sessionId: string) => Promise<BusinessDetails | null>,
  ) {}

  async run({ sessionId, step }: TestModeAdvanceData): Promise<void> {
    await this.sessions.advance(sessionId, 'in_progress');
    if (step === 'in_progress') return;
    await this.sessions.advance(sessionId, 'processing');
    if (step === 'processing') return;
    const s = await this.db.getRepository(SessionEntity).findOneBy({ id: sessionId });
    if (!s || s.status !== 'processing') return;
    // With metadata.test_identity, T3/T4 screen it for real so tenants see real hits (docs/sanctions.md, "Test mode").
    // The page never changes test_identity, so it is screened before the row is locked.
    const identity = this.sanctions && (s.tier === 'T3' || s.tier === 'T4') ? testIdentityOf(s.metadata) : null;
    const hits = identity && this.sanctions ? await this.sanctions.screenForTenant(s.tenantId, identity, { current: true }) : null;
    // A T4 page that gave its business before the clock: the test identifiers decide the registry checks (docs/checks.md).
    const business = s.tier === 'T4' && this.businessOf ? await this.businessOf(s.id) : null;
    const registries = await testModeRegistryRun(business);
    // The outcome is read from the locked row: a choice on the test page (HostedFlowService.chooseTestOutcome) either
    // committed before it, and counts, or finds the session decided.
    let decided: { status: SessionStatus; result: SessionResult } | null = null;
    const decide = (cur: SessionEntity) => {
      let outcome = testModeResult(cur.tier as Tier, testOutcomeOf(cur.metadata));
      if (hits) outcome = withSanctionsScreening(cur.tier as Tier, outcome, hits);
      if (registries) outcome = withTestModeRegistries(cur.tier as Tier, outcome, registries, business?.country);
      // A real chip submission (T5) replaces the fixed chip block; see ChipSubmissionService.
      decided = withSubmittedChip(cur.tier as Tier, outcome, cur.result);
      return [decided.status];
    };
    await this.sessions.advance(sessionId, (cur) => (cur.status === 'processing' ? decide(cur) : []), () => (decided ? { result: decided.result } : {}), {
      unless: async (_m, cur) => cur.status !== 'processing',
      within: async (m, cur) => (decided ? automatedDecision(decided.result, TEST_MODE_POLICY_VERSION)(m, cur) : undefined),
    });
  }
}
