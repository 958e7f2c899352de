import type { Router } from 'express';
import type { Container } from '../../src/container';
import type { ConsoleGate } from './console-guard';
import { chromeOf, sendConsolePage } from './console-layout';

/** What the console's review pages get: the services, and the gate (guards, form tokens). */
export type ConsolePagesDeps = { container: Container; gate: ConsoleGate };

/**
 * The console's review pages (queue, case, decide, settings): registered here, on the console's
 * router (web/console/console.router.ts), after the sign-in, second-factor and members routes.
 * Guard each with `d.gate.requireConsoleMember(minRole)`; the member is on `res.locals.consoleMember`;
 * answer with `sendConsolePage(req, res, { title, active, body })` (web/console/console-layout.ts).
 * (The review pages' owner replaces the placeholders below.)
 */
export function consolePagesRoutes(router: Router, d: ConsolePagesDeps): void {
  for (const [path, active] of [['/queue', 'queue'], ['/settings', 'settings']] as const) {
    router.get(path, d.gate.requireConsoleMember('viewer'), (req, res) => {
      const { m } = chromeOf(req, res);
      const title = active === 'queue' ? m.navQueue : m.navSettings;
      sendConsolePage(req, res, { title, active, body: `<h1>${title}</h1>` });
    });
  }
}
