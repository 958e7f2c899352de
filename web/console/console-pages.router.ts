import type { Router } from 'express';
import type { Container } from '../../src/container';
import type { ConsoleMember } from '../../src/members/member';
import type { ConsoleAccess } from './console-access';
import type { ConsoleGate } from './console-guard';
import { chromeOf, sendConsolePage } from './console-layout';
import { reviewRoutes } from './review.router';
import { settingsRoutes } from './settings.router';

/** What the console's review pages get: the services, and the gate (guards, form tokens). */
export type ConsolePagesDeps = { container: Container; gate: ConsoleGate };

/**
 * The console's review pages (queue, case, decide, settings): registered here, on the console's
 * router (web/console/console.router.ts), after the sign-in, second-factor and members routes.
 * Each is guarded by `d.gate.requireConsoleMember(minRole)` (through ConsoleAccess) and answered in
 * the console's shell (web/console/console-layout.ts).
 */
export function consolePagesRoutes(router: Router, d: ConsolePagesDeps): void {
  const access: ConsoleAccess = {
    require: (min) => d.gate.requireConsoleMember(min),
    memberOf: (res) => res.locals.consoleMember as ConsoleMember,
    localeOf: (req, res) => chromeOf(req, res).locale,
    formToken: (_req, res, purpose) => d.gate.formToken(res, purpose),
    checkFormToken: (_req, res, purpose, given) => d.gate.checkFormToken(res, purpose, given),
    send: (req, res, page) => sendConsolePage(req, res, page),
  };
  const c = d.container;
  reviewRoutes(router, { access, review: c.review, evidence: c.evidence });
  settingsRoutes(router, { access, settings: c.review.tenantSettings, review: c.review.settings });
}
