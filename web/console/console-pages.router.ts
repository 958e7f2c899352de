import type { Router } from 'express';
import type { ReviewServices } from '../../src/review/review-services';
import type { EvidenceAccessService } from '../../src/vault/evidence-access.service';
import type { ConsoleGate } from './console-guard';
import { reviewRoutes } from './review.router';
import { settingsRoutes } from './settings.router';

/** What the console's review pages get: the services, and the gate (guards, form tokens). */
export type ConsolePagesDeps = { review: ReviewServices; evidence: EvidenceAccessService; gate: ConsoleGate };

/**
 * The console's review pages (queue, case, decide, settings): registered here, on the console's
 * router (web/console/console.router.ts), after the sign-in, second-factor and members routes.
 * Each is guarded by `d.gate.requireConsoleMember(minRole)` and answered in
 * the console's shell (web/console/console-layout.ts).
 */
export function consolePagesRoutes(router: Router, d: ConsolePagesDeps): void {
  reviewRoutes(router, { gate: d.gate, review: d.review, evidence: d.evidence });
  settingsRoutes(router, { gate: d.gate, settings: d.review.tenantSettings, review: d.review.settings });
}
