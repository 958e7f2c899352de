import type { DataSource } from 'typeorm';
import type { AuditLogService } from '../audit/audit-log.service';
import type { SecretBox } from '../crypto/secret-box';
import { updatedRows } from '../db/updated-rows';
import { DomainError } from '../errors';
import { newId, randomBase62, sha256Hex } from '../ids';
import type { MailOutbox } from '../mail/mail-outbox';
import { type UserService } from '../users/user.service';
import { emailLookupHash, isEmail, normaliseEmail } from '../mail/email-address';
import { isMemberRole, type MemberRole } from './member';
import type { MemberActor, MemberService } from './member.service';

/** An invitation link works once, for 7 days (issue 27). */
export const INVITATION_TTL_SECONDS = 7 * 24 * 3600;
export const INVITATIONS_PATH = '/console/invitations';

export type Invitation = { id: string; tenantId: string; tenantName: string; email: string; role: MemberRole; expiresAt: Date };
/** Why a link does not open: never used, used or withdrawn (`link_invalid`), or past its 7 days (`expired`). */
export type InvitationRefusal = 'link_invalid' | 'expired' | 'wrong_account';
/** The words of the invitation mail, in the inviter's language: {tenant}, {role}, {link}, {days} are filled in. */
export type InvitationMailText = { subject: string; text: string; roleNames: Record<MemberRole, string> };

type Row = { id: string; tenant_id: string; name: string; email_sealed: string; role: MemberRole; expires_at: Date; accepted_at: Date | null; revoked_at: Date | null };

/**
 * Invitations to a tenant's console (docs/console.md, "Members"): mailed through the outbox, the
 * link's token stored only as its SHA-256, accepted once within INVITATION_TTL_SECONDS by the account
 * whose email was invited (after signing in or signing up), which then becomes a member.
 */
export class InvitationService {
  constructor(
    private readonly db: DataSource,
    private readonly box: SecretBox,
    private readonly mail: MailOutbox,
    private readonly members: MemberService,
    private readonly users: UserService,
    private readonly audit: AuditLogService,
    private readonly publicBaseUrl: string,
    private readonly ttlSeconds = INVITATION_TTL_SECONDS,
  ) {}

  /** Invites `email` as `role`; an admin may not invite an owner. Returns the invitation (its link went by mail only). */
  async invite(o: { tenantId: string; email: string; role: string; by: MemberActor; text: InvitationMailText }): Promise<Invitation> {
    const email = normaliseEmail(o.email);
    if (!isEmail(email)) throw new DomainError('invalid_request', 'email is not a valid address');
    if (!isMemberRole(o.role)) throw new DomainError('invalid_request', 'role is one of owner, admin, reviewer, viewer');
    if (o.by && o.by.role !== 'owner' && (o.role === 'owner' || o.by.role !== 'admin')) throw new DomainError('insufficient_scope', o.by.role === 'admin' ? 'Only an owner invites an owner' : 'Only an owner or an admin invites');
    const role: MemberRole = o.role;
    const [tenant]: { name: string }[] = await this.db.query(`SELECT name FROM tenants WHERE id = $1`, [o.tenantId]);
    if (!tenant) throw new DomainError('not_found', 'Tenant not found');
    const token = randomBase62(32);
    const id = newId('minv');
    const expiresAt = new Date(Date.now() + this.ttlSeconds * 1000);
    await this.db.transaction(async (m) => {
      await m.query(
        `INSERT INTO member_invitations (id, tenant_id, email_hash, email_sealed, role, token_hash, invited_by, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [id, o.tenantId, emailLookupHash(this.box, email), this.box.seal(email), role, sha256Hex(token), o.by?.memberId ?? null, expiresAt],
      );
      await this.audit.append({ tenantId: o.tenantId, livemode: true, action: 'member.invited', subjectId: id, detail: { invitation_id: id, role, by: o.by?.memberId ?? 'operator' } }, m);
    });
    const vars: Record<string, string> = { tenant: tenant.name, role: o.text.roleNames[role], link: `${this.publicBaseUrl}${INVITATIONS_PATH}/${token}`, days: String(Math.round(this.ttlSeconds / 86400)) };
    const fill = (t: string) => t.replace(/\{(\w+)\}/g, (_, k: string) => vars[k] ?? '');
    await this.mail.send({ to: email, subject: fill(o.text.subject), text: fill(o.text.text) });
    return { id, tenantId: o.tenantId, tenantName: tenant.name, email, role, expiresAt };
  }

  /** The invitation a link names while it may be accepted. */
  async peek(token: string): Promise<Invitation | { refused: InvitationRefusal }> {
    const row = await this.rowOf(token);
    if (!row || row.accepted_at || row.revoked_at) return { refused: 'link_invalid' };
    if (new Date(row.expires_at).getTime() <= Date.now()) return { refused: 'expired' };
    return this.toInvitation(row);
  }

  /**
   * Accepts the invitation for `userId`, once: the link is spent and the membership made in one
   * transaction. Only the invited address's account may accept (a forwarded link is not a key).
   */
  async accept(token: string, userId: string): Promise<{ memberId: string; tenantId: string; role: MemberRole } | { refused: InvitationRefusal }> {
    const peeked = await this.peek(token);
    if ('refused' in peeked) return peeked;
    const user = await this.users.findById(userId);
    if (!user || normaliseEmail(user.email) !== peeked.email) return { refused: 'wrong_account' };
    return this.db.transaction(async (m) => {
      const spent = updatedRows<{ id: string }>(
        await m.query(`UPDATE member_invitations SET accepted_at = now() WHERE token_hash = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now() RETURNING id`, [sha256Hex(token)]),
      );
      if (!spent.length) return { refused: 'link_invalid' as const };
      const { memberId } = await this.members.add(peeked.tenantId, userId, peeked.role, { invitationId: peeked.id }, m);
      await m.query(`UPDATE member_invitations SET member_id = $2 WHERE id = $1`, [peeked.id, memberId]);
      await this.audit.append({ tenantId: peeked.tenantId, livemode: true, action: 'member.invitation_accepted', subjectId: peeked.id, detail: { invitation_id: peeked.id, member_id: memberId, role: peeked.role } }, m);
      const [row]: { role: MemberRole }[] = await m.query(`SELECT role FROM members WHERE id = $1`, [memberId]);
      return { memberId, tenantId: peeked.tenantId, role: row.role };
    });
  }

  /**
   * Withdraws an invitation not yet accepted (the Members page, `member withdraw`): its link opens
   * nothing from then on. An owner or an admin withdraws (an admin not an owner's invitation, as an
   * admin cannot invite one); the operator's CLI (`by` null) any. Another tenant's id is not found.
   */
  async withdraw(tenantId: string, invitationId: string, by: MemberActor): Promise<void> {
    if (by && by.role !== 'owner' && by.role !== 'admin') throw new DomainError('insufficient_scope', 'Only an owner or an admin withdraws an invitation');
    await this.db.transaction(async (m) => {
      const [row]: { role: MemberRole }[] = await m.query(
        `SELECT role FROM member_invitations WHERE id = $1 AND tenant_id = $2 AND accepted_at IS NULL AND revoked_at IS NULL FOR UPDATE`,
        [invitationId, tenantId],
      );
      if (!row) throw new DomainError('not_found', 'Invitation not found, or already accepted or withdrawn');
      if (by && by.role !== 'owner' && row.role === 'owner') throw new DomainError('insufficient_scope', "Only an owner withdraws an owner's invitation");
      await m.query(`UPDATE member_invitations SET revoked_at = now() WHERE id = $1`, [invitationId]);
      await this.audit.append({ tenantId, livemode: true, action: 'member.invitation_withdrawn', subjectId: invitationId, detail: { invitation_id: invitationId, role: row.role, by: by?.memberId ?? 'operator' } }, m);
    });
  }

  /** Invitations not yet accepted nor withdrawn, newest first (the Members page). */
  async pending(tenantId: string): Promise<Invitation[]> {
    const rows: Row[] = await this.db.query(
      `SELECT i.*, t.name FROM member_invitations i JOIN tenants t ON t.id = i.tenant_id
        WHERE i.tenant_id = $1 AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > now() ORDER BY i.created_at DESC LIMIT 200`,
      [tenantId],
    );
    return rows.map((r) => this.toInvitation(r));
  }

  private async rowOf(token: string): Promise<Row | null> {
    if (!/^[A-Za-z0-9]{32}$/.test(token)) return null;
    const [row]: Row[] = await this.db.query(`SELECT i.*, t.name FROM member_invitations i JOIN tenants t ON t.id = i.tenant_id WHERE i.token_hash = $1`, [sha256Hex(token)]);
    return row ?? null;
  }

  private toInvitation(r: Row): Invitation {
    return { id: r.id, tenantId: r.tenant_id, tenantName: r.name, email: this.box.open(r.email_sealed), role: r.role, expiresAt: new Date(r.expires_at) };
  }
}
