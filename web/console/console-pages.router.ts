import type { Router } from 'express';
import type { Container } from '../../src/container';
import type { ConsoleGate } from './console-guard';
import { reviewRoutes } from './review.router';
import { settingsRoutes } from './settings.router';

/** What the console's review pages get: the services, and the gate (guards, form tokens). */
export type ConsolePagesDeps = { container: Container; gate: ConsoleGate };

/**
 * The console's review pages (queue, case, decide, settings): registered here, on the console's
 * router (web/console/console.router.ts), after the sign-in, second-factor and members routes.
 * Each is guarded by `d.gate.requireConsoleMember(minRole)` and answered in
 * the console's shell (web/console/console-layout.ts).
 */
export function consolePagesRoutes(router: Router, d: ConsolePagesDeps): void {
  const c = d.container;
  reviewRoutes(router, { gate: d.gate, review: c.review, evidence: c.evidence });
  settingsRoutes(router, { gate: d.gate, settings: c.review.tenantSettings, review: c.review.settings });
}
