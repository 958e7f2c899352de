import path from 'node:path';
import { pageForm, pageInputGuard } from '../page-input';
import { refuseConsoleInput } from './console-problems';
import { Router } from 'express';
import { setPageSecurityHeaders } from '../../http/security-headers';
import type { ConsoleServices } from '../../src/members/console-services';
import type { ConsoleWork } from '../../src/console/console-work';
import type { EvidenceAccessService } from '../../src/vault/evidence-access.service';
import { CONSOLE_PATH } from '../../src/oidc/first-party-sign-in';
import { escapeHtml as esc } from '../../http/html';
import { fill } from '../i18n';
import { wrap } from '../accounts/wrap';
import { ConsoleGate, isConsolePath } from './console-guard';
import { anonymousChrome, chromeOf, sendConsolePage } from './console-layout';
import { roleName } from './console-messages';
import { consolePagesRoutes } from './console-pages.router';
import { sendConsoleProblem } from './console-problems';
import { invitationRoutes } from './invitation.router';
import { membersRoutes } from './members.router';
import { secondFactorRoutes } from './second-factor.router';

const ASSETS: Record<string, { file: string; type: string }> = {
  'console.css': { file: path.resolve(__dirname, '..', '..', '..', 'web', 'console', 'console.css'), type: 'text/css; charset=utf-8' },
  'console.js': { file: path.resolve(__dirname, 'assets', 'console.js'), type: 'text/javascript; charset=utf-8' },
};

/**
 * The tenant staff's console at /console (docs/decisions.md D16, docs/console.md): a first-party client
 * of the service's own provider. This router holds the sign-in and its callback, the tenant picker,
 * the second factor, invitations and the Members page, then the review pages
 * (web/console/console-pages.router.ts). Server-rendered; one small script for passkeys.
 */
/** What the console uses: its own services, the review services and evidence, and whether its cookies are `Secure`. */
export type ConsoleRouterDeps = { console: ConsoleServices; work: ConsoleWork; evidence: EvidenceAccessService; secureCookies: boolean };

export function consoleRouter(c: ConsoleRouterDeps): Router {
  const router = Router();
  const gate = new ConsoleGate(c.console, c.secureCookies);
  const form = pageForm('8kb', refuseConsoleInput);
  router.use((_req, res, next) => {
    setPageSecurityHeaders(res);
    res.setHeader('cache-control', 'no-store');
    next();
  });
  // Every path segment and query parameter under the limits of /v1's input (issue #40 finding 10); forms: `pageForm`.
  router.use(pageInputGuard(refuseConsoleInput));

  router.get('/assets/:file', (req, res) => {
    // Own entries only: `constructor`, `__proto__` and `toString` are the prototype's, not assets.
    const name = String(req.params.file);
    const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!asset) return sendConsoleProblem(req, res, 'not_found');
    res.setHeader('cache-control', 'public, max-age=300');
    res.type(asset.type).sendFile(asset.file);
  });

  router.get('/sign-in', (req, res) => {
    gate.signInThen(req, res, { returnTo: isConsolePath(req.query.return) ? req.query.return : CONSOLE_PATH });
  });

  router.get(
    '/callback',
    wrap(async (req, res) => {
      const outcome = await gate.completeSignIn(req, res);
      if ('refused' in outcome) return sendConsoleProblem(req, res, outcome.refused);
      let tenantId: string | null = null;
      if (outcome.keep) {
        // The invitation accepted before this sign-in began, sealed in the flow cookie (web/console/invitation.router.ts).
        const accepted = await c.console.invitations.accept(outcome.keep, outcome.userId);
        if ('refused' in accepted) return sendConsoleProblem(req, res, accepted.refused, accepted.refused === 'wrong_account' ? `${CONSOLE_PATH}/sign-in` : undefined);
        tenantId = accepted.tenantId;
      }
      const memberships = await c.console.members.memberships(outcome.userId);
      if (!memberships.length) return sendConsoleProblem(req, res, 'not_member');
      if (!tenantId && memberships.length === 1) tenantId = memberships[0].tenantId;
      const member = memberships.find((t) => t.tenantId === tenantId);
      await gate.startSession(res, outcome.userId, member ? { tenantId: member.tenantId, memberId: member.memberId } : null);
      res.redirect(303, tenantId ? outcome.returnTo : `${CONSOLE_PATH}/tenants?return=${encodeURIComponent(outcome.returnTo)}`);
    }),
  );

  // A member of several tenants picks one (and may switch later); the second factor, once passed, holds for the sign-in.
  router.get(
    '/tenants',
    wrap(async (req, res) => {
      const session = await gate.currentSession(req);
      if (!session) return gate.signInThen(req, res, { returnTo: `${CONSOLE_PATH}/tenants` });
      res.locals.consoleSession = session;
      const memberships = await c.console.members.memberships(session.userId);
      if (!memberships.length) return sendConsoleProblem(req, res, 'not_member');
      const { m } = anonymousChrome(req);
      const token = gate.formToken(res, 'console:tenant');
      const returnTo = isConsolePath(req.query.return) ? req.query.return : CONSOLE_PATH;
      const items = memberships
        .map(
          (t) => `<li class="card"><h2 class="card__title">${esc(t.tenantName)}</h2><p>${esc(roleName(m, t.role))}</p><form method="post" action="${CONSOLE_PATH}/tenants">
<input type="hidden" name="form_token" value="${esc(token)}"><input type="hidden" name="tenant_id" value="${esc(t.tenantId)}"><input type="hidden" name="return" value="${esc(returnTo)}">
<button class="button button--primary" type="submit">${esc(fill(m.openConsole, { tenant: t.tenantName }))}</button></form></li>`,
        )
        .join('');
      sendConsolePage(req, res, { title: m.tenantsTitle, body: `<h1>${esc(m.tenantsTitle)}</h1><p>${esc(m.tenantsLead)}</p><ul class="cards">${items}</ul>` });
    }),
  );
  router.post(
    '/tenants',
    form,
    wrap(async (req, res) => {
      const session = await gate.currentSession(req);
      if (!session) return gate.signInThen(req, res, { returnTo: `${CONSOLE_PATH}/tenants` });
      res.locals.consoleSession = session;
      const tenantId = typeof req.body?.tenant_id === 'string' ? req.body.tenant_id : '';
      const memberships = gate.checkFormToken(res, 'console:tenant', req.body?.form_token) ? await c.console.members.memberships(session.userId) : [];
      const member = memberships.find((t) => t.tenantId === tenantId);
      if (!member) return void res.redirect(303, `${CONSOLE_PATH}/tenants`);
      const from = memberships.find((t) => t.tenantId === session.tenantId);
      await c.console.sessions.chooseTenant(session.id, from ? { tenantId: from.tenantId, memberId: from.memberId } : null, { tenantId: member.tenantId, memberId: member.memberId });
      res.redirect(303, isConsolePath(req.body?.return) ? req.body.return : CONSOLE_PATH);
    }),
  );

  router.post(
    '/sign-out',
    form,
    wrap(async (req, res) => {
      const session = await gate.currentSession(req);
      if (session) {
        res.locals.consoleSession = session;
        if (gate.checkFormToken(res, 'console:sign-out', req.body?.form_token)) {
          const member = session.tenantId ? (await c.console.members.memberships(session.userId)).find((t) => t.tenantId === session.tenantId) : undefined;
          await c.console.sessions.end(session.id, member ? { tenantId: member.tenantId, memberId: member.memberId } : null);
        }
      }
      gate.clearSession(res);
      const { m } = anonymousChrome(req);
      res.locals.consoleChrome = anonymousChrome(req);
      sendConsolePage(req, res, { title: m.signedOutTitle, body: `<h1>${esc(m.signedOutTitle)}</h1><p>${esc(m.signedOutLead)}</p><div class="actions"><a class="button button--primary" href="${CONSOLE_PATH}/sign-in">${esc(m.signInAgain)}</a></div>` });
    }),
  );

  router.get('/', gate.requireConsoleMember('viewer'), (_req, res) => res.redirect(303, `${CONSOLE_PATH}/queue`));

  secondFactorRoutes(router, gate);
  invitationRoutes(router, gate);
  membersRoutes(router, gate);
  consolePagesRoutes(router, { work: c.work, evidence: c.evidence, gate });
  router.use((req, res) => {
    res.locals.consoleChrome ??= chromeOf(req, res);
    sendConsoleProblem(req, res, 'not_found');
  });
  return router;
}
