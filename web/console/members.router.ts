import { type Request, type Response, type Router } from 'express';
import { pageForm } from '../page-input';
import { refuseConsoleInput } from './console-problems';
import { DomainError } from '../../src/errors';
import { isMemberRole, MEMBER_ID_PATTERN, roleAtLeast, type MemberRole } from '../../src/members/member';
import { CONSOLE_PATH } from '../../src/oidc/first-party-sign-in';
import { wrap } from '../accounts/wrap';
import type { ConsoleGate } from './console-guard';
import { chromeOf, sendConsolePage } from './console-layout';
import { consoleMessagesFor, roleName } from './console-messages';
import { membersMessagesFor, type MembersMessages } from './members-messages';
import { membersPage } from './members-pages';

const PURPOSE = 'console:members';
const NOTICES = ['invited', 'roleChanged', 'removed', 'withdrawn'] as const;
const INVITATION_ID = /^minv_[A-Za-z0-9]{16,}$/;

/**
 * The Members page (docs/console.md, "Members"): every member reads it; owners and admins invite,
 * change roles and remove. The rules (an admin never makes, changes or removes an owner; the last
 * owner stays) are the MemberService's and InvitationService's, shown here in words.
 */
export function membersRoutes(router: Router, gate: ConsoleGate): void {
  const s = gate.services;
  const form = pageForm('8kb', refuseConsoleInput);
  const me = (res: Response) => gate.memberOf(res);

  async function show(req: Request, res: Response, o: { status?: number; error?: { text: string; field?: string }; values?: { email: string; role: MemberRole } } = {}): Promise<void> {
    const { m, locale } = chromeOf(req, res);
    const mm = membersMessagesFor(locale);
    const member = me(res);
    const canManage = roleAtLeast(member.role, 'admin');
    const [members, invitations] = await Promise.all([s.members.list(member.tenantId), canManage ? s.invitations.pending(member.tenantId) : Promise.resolve([])]);
    const done = NOTICES.find((n) => n === req.query.done);
    sendConsolePage(req, res, {
      status: o.status,
      title: mm.title,
      active: 'members',
      body: membersPage({ locale, m, mm, me: member, members, invitations, canManage, formToken: gate.formToken(res, PURPOSE), notice: done ? mm[done] : null, error: o.error ?? null, values: o.values ?? { email: '', role: 'reviewer' } }),
    });
  }

  const refusalText = (mm: MembersMessages, err: DomainError): string =>
    err.code === 'insufficient_scope' ? mm.onlyOwnerMakesOwner : err.code === 'invalid_state' ? mm.lastOwner : err.code === 'not_found' ? mm.notFound : mm.badEmail;

  router.get('/members', gate.requireConsoleMember('viewer'), wrap((req, res) => show(req, res)));

  router.post(
    '/members/invite',
    form,
    gate.requireConsoleMember('admin'),
    wrap(async (req, res) => {
      const { m, locale } = chromeOf(req, res);
      const mm = membersMessagesFor(locale);
      const email = typeof req.body?.email === 'string' ? req.body.email.slice(0, 320) : '';
      const role = isMemberRole(req.body?.role) ? req.body.role : 'viewer';
      if (!gate.checkFormToken(res, PURPOSE, req.body?.form_token)) return show(req, res, { status: 400, error: { text: m.formExpired }, values: { email, role } });
      const member = me(res);
      // The mail goes in the inviter's language; the link's page follows the invitee's browser.
      const cm = consoleMessagesFor(locale);
      try {
        await s.invitations.invite({
          tenantId: member.tenantId,
          email,
          role,
          by: { memberId: member.memberId, role: member.role },
          text: { subject: cm.inviteMailSubject, text: cm.inviteMailText, roleNames: { owner: roleName(cm, 'owner'), admin: roleName(cm, 'admin'), reviewer: roleName(cm, 'reviewer'), viewer: roleName(cm, 'viewer') } },
        });
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        const field = err.code === 'invalid_request' ? 'email' : 'role';
        return show(req, res, { status: err.code === 'insufficient_scope' ? 403 : 400, error: { text: refusalText(mm, err), field }, values: { email, role } });
      }
      res.redirect(303, `${CONSOLE_PATH}/members?done=invited`);
    }),
  );

  const change = (action: 'role' | 'remove') =>
    router.post(
      `/members/:id/${action}`,
      form,
      gate.requireConsoleMember('admin'),
      wrap(async (req, res) => {
        const { m, locale } = chromeOf(req, res);
        const mm = membersMessagesFor(locale);
        const id = String(req.params.id);
        if (!gate.checkFormToken(res, PURPOSE, req.body?.form_token)) return show(req, res, { status: 400, error: { text: m.formExpired } });
        if (!MEMBER_ID_PATTERN.test(id) || (action === 'role' && !isMemberRole(req.body?.role))) return show(req, res, { status: 400, error: { text: mm.notFound } });
        const member = me(res);
        const by = { memberId: member.memberId, role: member.role };
        try {
          if (action === 'role') await s.members.changeRole(member.tenantId, id, req.body.role as MemberRole, by);
          else await s.members.remove(member.tenantId, id, by);
        } catch (err) {
          if (!(err instanceof DomainError)) throw err;
          return show(req, res, { status: err.code === 'not_found' ? 404 : err.code === 'insufficient_scope' ? 403 : 409, error: { text: refusalText(mm, err) } });
        }
        res.redirect(303, `${CONSOLE_PATH}/members?done=${action === 'role' ? 'roleChanged' : 'removed'}`);
      }),
    );
  change('role');
  change('remove');

  // Withdrawing an invitation not yet accepted: its link opens nothing afterwards (InvitationService.withdraw).
  router.post(
    '/members/invitations/:id/withdraw',
    form,
    gate.requireConsoleMember('admin'),
    wrap(async (req, res) => {
      const { m, locale } = chromeOf(req, res);
      const mm = membersMessagesFor(locale);
      const id = String(req.params.id);
      if (!gate.checkFormToken(res, PURPOSE, req.body?.form_token)) return show(req, res, { status: 400, error: { text: m.formExpired } });
      if (!INVITATION_ID.test(id)) return show(req, res, { status: 404, error: { text: mm.invitationGone } });
      const member = me(res);
      try {
        await s.invitations.withdraw(member.tenantId, id, { memberId: member.memberId, role: member.role });
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        return show(req, res, { status: err.code === 'insufficient_scope' ? 403 : 404, error: { text: err.code === 'insufficient_scope' ? mm.onlyOwnerMakesOwner : mm.invitationGone } });
      }
      res.redirect(303, `${CONSOLE_PATH}/members?done=withdrawn`);
    }),
  );
}
