import type { Request, Response, Router } from 'express';
import { escapeHtml as esc } from '../../http/html';
import { CONSOLE_PATH } from '../../src/oidc/first-party-sign-in';
import { fill } from '../i18n';
import { wrap } from '../accounts/wrap';
import type { ConsoleGate } from './console-guard';
import { sendConsolePage, anonymousChrome } from './console-layout';
import { roleName } from './console-messages';
import { sendConsoleProblem } from './console-problems';

/**
 * An invitation's link (docs/console.md, "Members"). Opening it changes nothing (mail scanners open
 * links): the page says who invites whom, and its button starts a sign-in (or a sign-up, from the
 * sign-in page) that carries the token, sealed; the callback accepts it once signed in.
 */
export function invitationRoutes(router: Router, gate: ConsoleGate): void {
  const path = (token: string) => `${CONSOLE_PATH}/invitations/${encodeURIComponent(token)}`;
  /** The invitation the link names, or null once the page saying why it no longer works is sent. */
  async function openInvitation(req: Request, res: Response, token: string) {
    const found = await gate.services.invitations.peek(token);
    if (!('refused' in found)) return found;
    sendConsoleProblem(req, res, found.refused === 'expired' ? 'expired' : 'link_invalid');
    return null;
  }
  router.get(
    '/invitations/:token',
    wrap(async (req, res) => {
      const token = String(req.params.token);
      const found = await openInvitation(req, res, token);
      if (!found) return;
      const { m } = anonymousChrome(req);
      const title = fill(m.inviteTitle, { tenant: found.tenantName });
      sendConsolePage(req, res, {
        title,
        body: `<h1>${esc(title)}</h1><p>${esc(fill(m.inviteLead, { tenant: found.tenantName, role: roleName(m, found.role), email: found.email }))}</p>
<form method="post" action="${esc(path(token))}/accept"><div class="actions"><button class="button button--primary" type="submit">${esc(m.acceptInvite)}</button></div></form>`,
      });
    }),
  );
  router.post(
    '/invitations/:token/accept',
    wrap(async (req, res) => {
      const token = String(req.params.token);
      if (await openInvitation(req, res, token)) gate.signInThen(req, res, { returnTo: CONSOLE_PATH, invitation: token });
    }),
  );
}
