import type { DataSource, EntityManager } from 'typeorm';
import type { AuditLogService } from '../audit/audit-log.service';
import { randomBase62, sha256Hex } from '../ids';
import { updatedRows } from '../db/updated-rows';
import { systemClock, type Clock } from '../clock';

/** A console sign-in as stored: named by the SHA-256 of the cookie's token, never the token itself. */
export type ConsoleSession = {
  id: string;
  userId: string;
  /** The tenant whose console this sign-in is in; null until a member of several tenants picks one. */
  tenantId: string | null;
  secondFactorAt: Date | null;
  /** The pending WebAuthn challenge of this sign-in (one at a time). */
  challenge: string | null;
  createdAt: Date;
  expiresAt: Date;
};

export type ConsoleSessionLimits = {
  /** From sign-in, whatever happens (12 h). */
  absoluteSeconds: number;
  /** Without a request (30 min); every request slides it. */
  idleSeconds: number;
};

/** The member a sign-in acts as at one tenant (audited with the console's entries). */
export type SignedInMember = { tenantId: string; memberId: string };

type Row = { token_hash: string; user_id: string; tenant_id: string | null; second_factor_at: Date | null; challenge: string | null; created_at: Date; expires_at: Date };

/**
 * Console sign-ins (docs/console.md, "Sessions"): server-side rows, so a removal, a role change or a
 * sign-out ends one at once on every instance. The cookie carries 32 random base62 characters; the
 * row is found by their hash. A row lives `absoluteSeconds` from sign-in and dies after `idleSeconds`
 * without a request.
 */
export class ConsoleSessionService {
  constructor(
    private readonly db: DataSource,
    readonly limits: ConsoleSessionLimits,
    private readonly audit: Pick<AuditLogService, 'append'>,
    private readonly now: Clock = systemClock,
  ) {}

  /**
   * A new sign-in of `userId`, at `member`'s tenant when the user is a member of one tenant only (or
   * accepted an invitation); else the tenant is picked next (chooseTenant). Returns the cookie's token.
   * Audited `console.signed_in` with the member once the tenant is known (issue 40, finding 12).
   */
  async start(userId: string, member: SignedInMember | null): Promise<{ token: string; session: ConsoleSession }> {
    const token = randomBase62(32);
    const now = this.now();
    const expires = new Date(now.getTime() + this.limits.absoluteSeconds * 1000);
    // The user's dead sign-ins go now: the table holds live ones and a few stale ones at most.
    await this.db.query(`DELETE FROM console_sessions WHERE user_id = $1 AND (expires_at <= $2 OR last_seen_at <= $3)`, [userId, now, this.idleCutoff(now)]);
    const row = await this.db.transaction(async (m) => {
      const [inserted]: Row[] = await m.query(
        `INSERT INTO console_sessions (token_hash, user_id, tenant_id, created_at, last_seen_at, expires_at) VALUES ($1, $2, $3, $4, $4, $5) RETURNING *`,
        [sha256Hex(token), userId, member?.tenantId ?? null, now, expires],
      );
      if (member) await this.entry(m, member, 'console.signed_in', {});
      return inserted;
    });
    return { token, session: toSession(row) };
  }

  /** A console entry in the member's tenant's live log: who, never an address nor a token. */
  private async entry(m: EntityManager, member: SignedInMember, action: string, detail: Record<string, unknown>): Promise<void> {
    await this.audit.append({ tenantId: member.tenantId, livemode: true, action, subjectId: member.memberId, detail: { member_id: member.memberId, ...detail } }, m);
  }

  /**
   * The live sign-in `token` names, its idle clock restarted; null for none, an expired or an idle one
   * (which is then deleted). The clock is written only when it has moved by a tenth of the idle limit
   * (at most a minute): a page's burst of requests reads the row without each one rewriting it.
   */
  async resolve(token: string | undefined): Promise<ConsoleSession | null> {
    if (!token || !/^[A-Za-z0-9]{32}$/.test(token)) return null;
    const id = sha256Hex(token);
    const now = this.now();
    const [row]: (Row & { last_seen_at: Date })[] = await this.db.query(`SELECT * FROM console_sessions WHERE token_hash = $1`, [id]);
    const lastSeen = row ? new Date(row.last_seen_at).getTime() : 0;
    if (!row || new Date(row.expires_at).getTime() <= now.getTime() || lastSeen <= this.idleCutoff(now).getTime()) {
      if (row) await this.db.query(`DELETE FROM console_sessions WHERE token_hash = $1`, [id]);
      return null;
    }
    if (now.getTime() - lastSeen >= this.slideStepMs()) await this.db.query(`UPDATE console_sessions SET last_seen_at = $2 WHERE token_hash = $1 AND last_seen_at < $2`, [id, now]);
    return toSession(row);
  }

  private slideStepMs(): number {
    return Math.min(60_000, (this.limits.idleSeconds * 1000) / 10);
  }

  /**
   * Moves the sign-in to another tenant's console. The second factor stays passed: it proves the
   * person, not the tenant. The first pick after signing in is the sign-in's entry at that tenant;
   * a switch is written to both tenants' logs, each naming only its own member (never the other tenant).
   */
  async chooseTenant(id: string, from: SignedInMember | null, to: SignedInMember): Promise<void> {
    await this.db.transaction(async (m) => {
      await m.query(`UPDATE console_sessions SET tenant_id = $2, challenge = NULL WHERE token_hash = $1`, [id, to.tenantId]);
      if (!from) return this.entry(m, to, 'console.signed_in', {});
      if (from.tenantId === to.tenantId) return;
      await this.entry(m, from, 'console.tenant_switched', { direction: 'left' });
      await this.entry(m, to, 'console.tenant_switched', { direction: 'entered' });
    });
  }

  async passSecondFactor(id: string): Promise<void> {
    await this.db.query(`UPDATE console_sessions SET second_factor_at = $2, challenge = NULL WHERE token_hash = $1`, [id, this.now()]);
  }

  async setChallenge(id: string, challenge: string | null): Promise<void> {
    await this.db.query(`UPDATE console_sessions SET challenge = $2 WHERE token_hash = $1`, [id, challenge]);
  }

  /** Takes the pending challenge (single use): null when there was none. */
  async takeChallenge(id: string): Promise<string | null> {
    const rows = updatedRows<{ challenge: string }>(
      await this.db.query(`UPDATE console_sessions s SET challenge = NULL FROM (SELECT token_hash, challenge FROM console_sessions WHERE token_hash = $1 FOR UPDATE) old WHERE s.token_hash = old.token_hash AND old.challenge IS NOT NULL RETURNING old.challenge`, [id]),
    );
    return rows[0]?.challenge ?? null;
  }

  /** Signing out: the row goes (audited with the member of the sign-in's tenant, when it had one). */
  async end(id: string, member: SignedInMember | null): Promise<void> {
    await this.db.transaction(async (m) => {
      const gone = updatedRows<{ token_hash: string }>(await m.query(`DELETE FROM console_sessions WHERE token_hash = $1 RETURNING token_hash`, [id]));
      if (gone.length && member) await this.entry(m, member, 'console.signed_out', {});
    });
  }

  private idleCutoff(now: Date): Date {
    return new Date(now.getTime() - this.limits.idleSeconds * 1000);
  }
}

function toSession(r: Row): ConsoleSession {
  return {
    id: r.token_hash,
    userId: r.user_id,
    tenantId: r.tenant_id,
    secondFactorAt: r.second_factor_at ? new Date(r.second_factor_at) : null,
    challenge: r.challenge,
    createdAt: new Date(r.created_at),
    expiresAt: new Date(r.expires_at),
  };
}
