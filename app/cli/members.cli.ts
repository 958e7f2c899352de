import type { DataSource } from 'typeorm';
import type { Config } from '../../src/config';
import { DomainError } from '../../src/errors';
import { loadUserDataBox } from '../../src/users/user-data-box';

export const MEMBER_COMMANDS = ['member invite', 'member withdraw', 'member add', 'member list'];

export const MEMBER_USAGE = `  member invite --tenant <id> --email <e> --role owner|admin|reviewer|viewer [--json]
                                              mail an invitation to the tenant's console (the link
                                              works once, for 7 days; docs/console.md)
  member withdraw --tenant <id> --invitation <minv_...> [--json]
                                              withdraw an invitation not yet accepted: its link
                                              opens nothing from then on
  member add --tenant <id> --email <e> --role <role> [--json]
                                              make an existing account a member at once (e.g. a
                                              tenant's first owner, when its mail cannot be read)
  member list --tenant <id> [--json]          the tenant's members and their roles`;

/** The invitation mail of the CLI (the console's pages send theirs in the inviter's language). */
const MAIL = {
  subject: 'You are invited to the review console of {tenant}',
  text: 'You are invited to join the review console of {tenant} as {role}.\n\nAccept the invitation here (it works once, for {days} days):\n{link}\n\nIf you did not expect this, ignore this message.',
  roleNames: { owner: 'Owner', admin: 'Admin', reviewer: 'Reviewer', viewer: 'Viewer' },
};

type Values = Record<string, string | boolean | undefined>;

/** The member commands of app/cli.ts: the operator acts (audited as `by: operator`). */
export async function membersCommand(command: string, db: DataSource, config: Config, values: Values, need: (name: string) => string): Promise<unknown> {
  // Loaded here, not at the top: every CLI command loads this file (for its usage), few of them manage members.
  const [{ AuditLogService }, { MailOutbox }, { UserService }, { InvitationService }, { isMemberRole }, { MemberService }] = await Promise.all([
    import('../../src/audit/audit-log.service.js'),
    import('../../src/mail/mail-outbox.js'),
    import('../../src/users/user.service.js'),
    import('../../src/members/invitation.service.js'),
    import('../../src/members/member.js'),
    import('../../src/members/member.service.js'),
  ]);
  const box = await loadUserDataBox(db, config);
  const audit = new AuditLogService(db);
  const members = new MemberService(db, box, audit);
  const users = new UserService(db, box);
  const tenantId = need('tenant');
  switch (command) {
    case 'member invite': {
      const mail = new MailOutbox(db, box, { smtpUrl: config.accounts.smtpUrl, from: config.accounts.mailFrom });
      try {
        const invitation = await new InvitationService(db, box, mail, members, users, audit, config.publicBaseUrl, config.console.invitationTtlSeconds).invite({ tenantId, email: need('email'), role: need('role'), by: null, text: MAIL });
        return { invitation_id: invitation.id, tenant_id: tenantId, email: invitation.email, role: invitation.role, expires_at: invitation.expiresAt.toISOString() };
      } finally {
        mail.close();
      }
    }
    case 'member withdraw': {
      const invitationId = need('invitation');
      const mail = new MailOutbox(db, box, { smtpUrl: config.accounts.smtpUrl, from: config.accounts.mailFrom });
      try {
        await new InvitationService(db, box, mail, members, users, audit, config.publicBaseUrl, config.console.invitationTtlSeconds).withdraw(tenantId, invitationId, null);
        return { invitation_id: invitationId, tenant_id: tenantId, withdrawn: true };
      } finally {
        mail.close();
      }
    }
    case 'member add': {
      const role = need('role');
      if (!isMemberRole(role)) throw new DomainError('invalid_request', 'role is one of owner, admin, reviewer, viewer');
      const user = await users.findByEmail(need('email'));
      if (!user || (user.state !== 'active' && user.state !== 'restricted')) throw new DomainError('not_found', 'No account with that email');
      const r = await members.add(tenantId, user.id, role, null);
      return { member_id: r.memberId, tenant_id: tenantId, user_id: user.id, role: (await members.find(tenantId, user.id))?.role ?? role, created: r.created };
    }
    default:
      return { members: (await members.list(tenantId)).map((x) => ({ member_id: x.id, email: x.email, role: x.role, created_at: x.createdAt.toISOString() })) };
  }
}
