import type { Router } from 'express';
import type { ConsoleWork } from '../../src/console/console-work';
import type { EvidenceAccessService } from '../../src/vault/evidence-access.service';
import type { ConsoleGate } from './console-guard';
import { reviewRoutes } from './review.router';
import { settingsRoutes } from './settings.router';

/** What the console's review pages get: the services, and the gate (guards, form tokens). */
export type ConsolePagesDeps = { work: ConsoleWork; evidence: EvidenceAccessService; gate: ConsoleGate };

/**
 * The console's review pages (queue, case, decide, settings): registered here, on the console's
 * router (web/console/console.router.ts), after the sign-in, second-factor and members routes.
 * Each is guarded by `d.gate.requireConsoleMember(minRole)` and answered in
 * the console's shell (web/console/console-layout.ts).
 */
export function consolePagesRoutes(router: Router, d: ConsolePagesDeps): void {
  reviewRoutes(router, { gate: d.gate, work: d.work, evidence: d.evidence });
  settingsRoutes(router, { gate: d.gate, settings: d.work.tenantSettings, review: d.work.settings });
}
