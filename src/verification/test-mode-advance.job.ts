import { withSubmittedChip } from '../chip/chip-result';
import { SessionService, TestModeStep } from '../sessions/session.service';
import { testModeResult, testOutcomeOf } from '../sessions/test-mode-outcome';
import { Tier } from '../sessions/tiers';
import { testIdentityOf, withSanctionsScreening } from '../sessions/sanctions-check';
import type { SanctionsScreeningService } from '../sanctions/screening.service';
import { SessionEntity } from '../../entities';
import { DataSource } from 'typeorm';
import { automatedDecision } from '../sessions/decision-history';
import { TEST_MODE_POLICY_VERSION } from './decision-policy';

export type TestModeAdvanceData = { sessionId: string; step: TestModeStep };

/**
 * Walks a test-mode session along the timeline of docs/api-behaviour.md, "Test mode". Steps may run late or out of order after a
 * restart, so each one first takes the earlier steps; steps that no longer apply are skipped.
 */
export class TestModeAdvanceJob {
  constructor(
    private readonly db: DataSource,
    private readonly sessions: SessionService,
    private readonly sanctions?: SanctionsScreeningService,
  ) {}

  async run({ sessionId, step }: TestModeAdvanceData): Promise<void> {
    await this.sessions.advance(sessionId, 'in_progress');
    if (step === 'in_progress') return;
    // A session the hosted page started is driven by the page and its checks from then on (docs/hosted-flow.md).
    const pageDriven = async (m: { query: (sql: string, params: unknown[]) => Promise<unknown[]> }) =>
      (await m.query(`SELECT 1 FROM hosted_captures WHERE session_id = $1`, [sessionId])).length > 0;
    await this.sessions.advance(sessionId, 'processing', () => ({}), { unless: (m) => pageDriven(m) });
    if (step === 'processing') return;
    const s = await this.db.getRepository(SessionEntity).findOneBy({ id: sessionId });
    if (!s || s.status !== 'processing' || (await pageDriven(this.db))) return;
    let outcome = testModeResult(s.tier as Tier, testOutcomeOf(s.metadata));
    // With metadata.test_identity, T3/T4 screen it for real so tenants see real hits (docs/sanctions.md, "Test mode").
    const identity = this.sanctions && (s.tier === 'T3' || s.tier === 'T4') ? testIdentityOf(s.metadata) : null;
    if (identity && this.sanctions) outcome = withSanctionsScreening(s.tier as Tier, outcome, await this.sanctions.screenForTenant(s.tenantId, identity, { current: true }));
    // A real chip submission (T5) replaces the fixed chip block; see ChipSubmissionService.
    const { status, result } = withSubmittedChip(s.tier as Tier, outcome, s.result);
    await this.sessions.advance(sessionId, status, () => ({ result }), { within: automatedDecision(result, TEST_MODE_POLICY_VERSION) });
  }
}
