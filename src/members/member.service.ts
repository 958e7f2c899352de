import type { DataSource, EntityManager } from 'typeorm';
import type { AuditLogService } from '../audit/audit-log.service';
import type { SecretBox } from '../crypto/secret-box';
import { updatedRows } from '../db/updated-rows';
import { DomainError } from '../errors';
import { emailLookupHash } from '../mail/email-address';
import { newId } from '../ids';
import { isMemberRole, roleAtLeast, type MemberRole } from './member';

/** A member of a tenant's console as its Members page lists them. */
export type Member = { id: string; tenantId: string; userId: string; role: MemberRole; email: string; createdAt: Date };
/** One tenant a user may open the console of. */
export type Membership = { memberId: string; tenantId: string; tenantName: string; role: MemberRole };
/** Who asks for a change: a member of the tenant, or the operator's CLI (null). */
export type MemberActor = { memberId: string; role: MemberRole } | null;

type MemberRow = { id: string; tenant_id: string; user_id: string; role: MemberRole; email_sealed: string; created_at: Date };

/** Only users who may still sign in count: an erased account is no one's member. */
const LIVE_USER = `u.state IN ('active', 'restricted')`;

/**
 * Tenant staff (docs/decisions.md D16, docs/console.md): who is a member of which tenant, with which role.
 * The rules live here, once, for the console's pages and the CLI alike: only an owner makes or
 * changes an owner, a tenant always keeps at least one owner, and every change is audited in the
 * tenant's live audit log with the member who made it.
 */
export class MemberService {
  constructor(
    private readonly db: DataSource,
    private readonly box: SecretBox,
    private readonly audit: AuditLogService,
  ) {}

  async list(tenantId: string): Promise<Member[]> {
    const rows: MemberRow[] = await this.db.query(
      `SELECT m.id, m.tenant_id, m.user_id, m.role, u.email_sealed, m.created_at
         FROM members m JOIN users u ON u.id = m.user_id AND ${LIVE_USER}
        WHERE m.tenant_id = $1 ORDER BY m.created_at, m.id`,
      [tenantId],
    );
    return rows.map((r) => this.toMember(r));
  }

  /** The member `userId` is at `tenantId`, or null (none, or the account was erased). */
  async find(tenantId: string, userId: string): Promise<Member | null> {
    const rows: MemberRow[] = await this.db.query(
      `SELECT m.id, m.tenant_id, m.user_id, m.role, u.email_sealed, m.created_at
         FROM members m JOIN users u ON u.id = m.user_id AND ${LIVE_USER}
        WHERE m.tenant_id = $1 AND m.user_id = $2`,
      [tenantId, userId],
    );
    return rows[0] ? this.toMember(rows[0]) : null;
  }

  /** The member a console sign-in acts as, with the tenant's name and how many tenants the user belongs to (one read per console request). */
  async signedIn(tenantId: string, userId: string): Promise<{ member: Member; tenantName: string; tenantCount: number } | null> {
    const rows: (MemberRow & { tenant_name: string; tenant_count: string })[] = await this.db.query(
      `SELECT m.id, m.tenant_id, m.user_id, m.role, u.email_sealed, m.created_at, t.name AS tenant_name,
              (SELECT count(*) FROM members o WHERE o.user_id = m.user_id) AS tenant_count
         FROM members m JOIN users u ON u.id = m.user_id AND ${LIVE_USER} JOIN tenants t ON t.id = m.tenant_id
        WHERE m.tenant_id = $1 AND m.user_id = $2`,
      [tenantId, userId],
    );
    return rows[0] ? { member: this.toMember(rows[0]), tenantName: rows[0].tenant_name, tenantCount: Number(rows[0].tenant_count) } : null;
  }

  /** Every tenant the user is a member of, by tenant name. */
  async memberships(userId: string): Promise<Membership[]> {
    const rows: { id: string; tenant_id: string; name: string; role: MemberRole }[] = await this.db.query(
      `SELECT m.id, m.tenant_id, t.name, m.role
         FROM members m JOIN tenants t ON t.id = m.tenant_id JOIN users u ON u.id = m.user_id AND ${LIVE_USER}
        WHERE m.user_id = $1 ORDER BY t.name, t.id`,
      [userId],
    );
    return rows.map((r) => ({ memberId: r.id, tenantId: r.tenant_id, tenantName: r.name, role: r.role }));
  }

  /**
   * Makes `userId` a member of `tenantId` (an accepted invitation, or the operator's `member add`).
   * An existing membership is kept as it is: an invitation never lowers nor raises a role silently.
   */
  async add(tenantId: string, userId: string, role: MemberRole, by: MemberActor | { invitationId: string }, within?: EntityManager): Promise<{ memberId: string; created: boolean }> {
    const source = by === null ? 'operator' : 'invitationId' in by ? by.invitationId : by.memberId;
    const run = async (m: EntityManager) => {
      const id = newId('mbr');
      const inserted: { id: string }[] = await m.query(
        `INSERT INTO members (id, tenant_id, user_id, role) VALUES ($1, $2, $3, $4) ON CONFLICT (tenant_id, user_id) DO NOTHING RETURNING id`,
        [id, tenantId, userId, role],
      );
      if (!inserted.length) {
        const [existing]: { id: string }[] = await m.query(`SELECT id FROM members WHERE tenant_id = $1 AND user_id = $2`, [tenantId, userId]);
        return { memberId: existing.id, created: false };
      }
      await this.audit.append({ tenantId, livemode: true, action: 'member.added', subjectId: id, detail: { member_id: id, role, by: source } }, m);
      return { memberId: id, created: true };
    };
    return within ? run(within) : this.db.transaction(run);
  }

  /** Changes a member's role. An admin neither makes an owner nor changes one; the last owner stays an owner. */
  async changeRole(tenantId: string, memberId: string, role: MemberRole, by: MemberActor): Promise<Member> {
    if (!isMemberRole(role)) throw new DomainError('invalid_request', 'role is one of owner, admin, reviewer, viewer');
    return this.db.transaction(async (m) => {
      const { target, owners } = await this.lockTenant(m, tenantId, memberId);
      if (by && !roleAtLeast(by.role, 'admin')) throw new DomainError('insufficient_scope', 'Only an owner or an admin changes roles');
      if (by && by.role !== 'owner' && (role === 'owner' || target.role === 'owner')) throw new DomainError('insufficient_scope', 'Only an owner makes or changes an owner');
      if (target.role === 'owner' && role !== 'owner' && owners === 1) throw new DomainError('invalid_state', 'A tenant keeps at least one owner');
      if (target.role !== role) {
        await m.query(`UPDATE members SET role = $2, updated_at = now() WHERE id = $1`, [memberId, role]);
        await this.audit.append({ tenantId, livemode: true, action: 'member.role_changed', subjectId: memberId, detail: { member_id: memberId, from: target.role, to: role, by: by?.memberId ?? 'operator' } }, m);
      }
      return { ...this.toMember(target), role };
    });
  }

  /**
   * Removes a member (and ends their console sign-ins at this tenant). An admin does not remove an
   * owner; the last owner stays. The invitations the member sent and those addressed to them that are
   * still open are voided in the same transaction (issue 40, finding 7): a removed admin's invitation
   * admits no one, and a removed member's second invitation does not bring them back.
   */
  async remove(tenantId: string, memberId: string, by: MemberActor): Promise<void> {
    await this.db.transaction(async (m) => {
      const { target, owners } = await this.lockTenant(m, tenantId, memberId);
      if (by && !roleAtLeast(by.role, 'admin')) throw new DomainError('insufficient_scope', 'Only an owner or an admin removes members');
      if (by && by.role !== 'owner' && target.role === 'owner') throw new DomainError('insufficient_scope', 'Only an owner removes an owner');
      if (target.role === 'owner' && owners === 1) throw new DomainError('invalid_state', 'The last owner cannot be removed');
      await m.query(`DELETE FROM members WHERE id = $1`, [memberId]);
      await m.query(`DELETE FROM console_sessions WHERE user_id = $1 AND tenant_id = $2`, [target.user_id, tenantId]);
      await this.audit.append({ tenantId, livemode: true, action: 'member.removed', subjectId: memberId, detail: { member_id: memberId, role: target.role, by: by?.memberId ?? 'operator' } }, m);
      const emailHash = emailLookupHash(this.box, this.box.open(target.email_sealed));
      const voided = updatedRows<{ id: string; invited_by: string | null }>(
        await m.query(
          `UPDATE member_invitations SET revoked_at = now() WHERE tenant_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND (invited_by = $2 OR email_hash = $3) RETURNING id, invited_by`,
          [tenantId, memberId, emailHash],
        ),
      );
      for (const v of voided) {
        const reason = v.invited_by === memberId ? 'inviter_removed' : 'invitee_removed';
        await this.audit.append({ tenantId, livemode: true, action: 'member.invitation_voided', subjectId: v.id, detail: { invitation_id: v.id, member_id: memberId, reason, by: by?.memberId ?? 'operator' } }, m);
      }
    });
  }

  /** Locks the tenant's members (one change at a time, so two removals never leave it without an owner) and finds the target. */
  private async lockTenant(m: EntityManager, tenantId: string, memberId: string): Promise<{ target: MemberRow; owners: number }> {
    const rows: (MemberRow & { live: boolean })[] = await m.query(
      `SELECT m.id, m.tenant_id, m.user_id, m.role, u.email_sealed, m.created_at, ${LIVE_USER} AS live
         FROM members m JOIN users u ON u.id = m.user_id
        WHERE m.tenant_id = $1 ORDER BY m.id FOR UPDATE OF m`,
      [tenantId],
    );
    const target = rows.find((r) => r.id === memberId && r.live);
    if (!target) throw new DomainError('not_found', 'Member not found');
    // An erased account's membership keeps no one in charge: only owners who can still sign in count.
    return { target, owners: rows.filter((r) => r.role === 'owner' && r.live).length };
  }

  private toMember(r: MemberRow): Member {
    return { id: r.id, tenantId: r.tenant_id, userId: r.user_id, role: r.role, email: this.box.open(r.email_sealed), createdAt: new Date(r.created_at) };
  }
}
