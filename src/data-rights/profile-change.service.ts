import type { DataSource, EntityManager } from 'typeorm';
import type { SecretBox } from '../crypto/secret-box';
import { DomainError, FieldsError } from '../errors';
import { randomBase62 } from '../ids';
import type { DsrJobService } from './dsr-job.service';
import { assertNotDeleted, lockUser, updateReturning } from './user-state';
import { systemClock, type Clock } from '../clock';
import { VERIFIED_FIELDS, type Profile, type VerifiedField } from '../users/profile';


export const SELF_MANAGED_FIELDS = ['display_name', 'handle', 'public_links', 'bio'] as const;
export type PendingChange = { id: string; field: VerifiedField; value: string; status: 'pending' | 'approved' | 'rejected'; dsrJobId: string; createdAt: Date; decidedAt: Date | null; note: string | null };
export type ProfileChangeView = PendingChange & { userId: string };

const HANDLE = /^[a-z0-9_]{3,30}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const COUNTRY = /^[A-Z]{2,3}$/;
const SEALED_COLUMN: Record<VerifiedField, string> = { legal_name: 'legal_name_sealed', date_of_birth: 'date_of_birth_sealed', nationality: 'nationality_sealed' };

type ChangeRow = { id: string; user_id: string; dsr_job_id: string; field: VerifiedField; value_sealed: string; status: PendingChange['status']; note: string | null; created_at: Date; decided_at: Date | null };

/**
 * `PATCH /v1/me/profile` (docs/data-rights.md, "Rectification"): the self-managed fields change at
 * once; a verified field (set by verifications) becomes a pending change, sealed like the field, in
 * a `rectification` DSR job for internal tools (`profileChanges`, `decideProfileChange`). A newer
 * request for the same field supersedes a pending one.
 */
export class ProfileChangeService {
  constructor(
    private readonly db: DataSource,
    private readonly dsr: DsrJobService,
    private readonly box: SecretBox,
    private readonly now: Clock = systemClock,
  ) {}

  async update(userId: string, patch: unknown): Promise<Profile> {
    const { self, verified } = validatePatch(patch);
    await this.db.transaction(async (m) => {
      assertNotDeleted(await lockUser(m, userId));
      const sets = Object.entries(self).map(([k, v], i) => ({ sql: `${k} = $${i + 2}`, value: k === 'public_links' ? JSON.stringify(v) : v }));
      if (sets.length) {
        try {
          await m.query(`UPDATE users SET ${sets.map((s) => s.sql).join(', ')}, updated_at = now() WHERE id = $1`, [userId, ...sets.map((s) => s.value)]);
        } catch (err) {
          if ((err as { code?: string }).code === '23505' || /unique/i.test(String((err as Error).message))) throw new DomainError('invalid_state', 'This handle is taken');
          throw err;
        }
      }
      const fields = Object.keys(verified) as VerifiedField[];
      if (fields.length === 0) return;
      const job = await this.dsr.create({ userId, kind: 'rectification', details: { fields }, within: m });
      const now = this.now();
      for (const field of fields) {
        await m.query(`UPDATE profile_changes SET status = 'rejected', note = 'superseded', decided_at = $3 WHERE user_id = $1 AND field = $2 AND status = 'pending'`, [userId, field, now]);
        await m.query(`INSERT INTO profile_changes (id, user_id, dsr_job_id, field, value_sealed, status, created_at) VALUES ($1, $2, $3, $4, $5, 'pending', $6)`, [
          `pch_${randomBase62(24)}`,
          userId,
          job.id,
          field,
          this.box.seal(verified[field]!),
          now,
        ]);
      }
    });
    return this.profile(userId);
  }

  async profile(userId: string, within?: EntityManager): Promise<Profile> {
    const q = within ?? this.db;
    const rows: Record<string, any>[] = await q.query(`SELECT * FROM users WHERE id = $1`, [userId]);
    const u = rows[0];
    if (!u || u.state === 'soft_deleted' || u.state === 'purged') throw new DomainError('not_found', 'User not found');
    const open = (v: string | null) => (v ? this.box.open(v) : null);
    const pending: ChangeRow[] = await q.query(`SELECT * FROM profile_changes WHERE user_id = $1 AND status = 'pending' ORDER BY created_at`, [userId]);
    return {
      id: u.id,
      display_name: u.display_name,
      handle: u.handle,
      public_links: u.public_links ?? [],
      bio: u.bio,
      legal_name: open(u.legal_name_sealed),
      date_of_birth: open(u.date_of_birth_sealed),
      nationality: open(u.nationality_sealed),
      state: u.state,
      objections: u.objections ?? [],
      pending_changes: pending.map((p) => ({ id: p.id, field: p.field, value: this.box.open(p.value_sealed), requested_at: new Date(p.created_at).toISOString(), dsr_job_id: p.dsr_job_id })),
    };
  }

  async list(filter: { status?: PendingChange['status'] | null; first?: number }): Promise<ProfileChangeView[]> {
    const first = filter.first ?? 50;
    if (!Number.isInteger(first) || first < 1 || first > 100) throw new DomainError('invalid_request', 'first must be between 1 and 100');
    const rows: ChangeRow[] = await this.db.query(`SELECT * FROM profile_changes WHERE ($1::text IS NULL OR status = $1) ORDER BY created_at ASC LIMIT $2`, [filter.status ?? null, first]);
    return rows.map((r) => this.view(r));
  }

  /** Approving writes the value into the verified field; the request completes when none of its changes is pending. */
  async decide(id: string, input: { decision: 'approve' | 'reject'; note?: string | null }): Promise<ProfileChangeView> {
    if (input.decision !== 'approve' && input.decision !== 'reject') throw new DomainError('invalid_request', 'decision must be approve or reject');
    return this.db.transaction(async (m) => {
      const rows: ChangeRow[] = await m.query(`SELECT * FROM profile_changes WHERE id = $1 FOR UPDATE`, [id]);
      const c = rows[0];
      if (!c) throw new DomainError('not_found', 'Profile change not found');
      if (c.status !== 'pending') throw new DomainError('invalid_state', `This change is already ${c.status}`);
      const now = this.now();
      if (input.decision === 'approve') await m.query(`UPDATE users SET ${SEALED_COLUMN[c.field]} = $2, updated_at = now() WHERE id = $1`, [c.user_id, c.value_sealed]);
      const [updated] = await updateReturning<ChangeRow>(m, `UPDATE profile_changes SET status = $2, note = $3, decided_at = $4 WHERE id = $1 RETURNING *`, [
        id,
        input.decision === 'approve' ? 'approved' : 'rejected',
        input.note ?? null,
        now,
      ]);
      const left: unknown[] = await m.query(`SELECT 1 FROM profile_changes WHERE dsr_job_id = $1 AND status = 'pending'`, [c.dsr_job_id]);
      const job = await this.dsr.get(c.dsr_job_id, m);
      if (left.length === 0 && job && job.status !== 'completed') {
        if (job.status === 'received') await this.dsr.start(job.id, m);
        const decided: ChangeRow[] = await m.query(`SELECT field, status FROM profile_changes WHERE dsr_job_id = $1`, [c.dsr_job_id]);
        await this.dsr.complete(job.id, { changes: decided.map((d) => ({ field: d.field, status: d.status })) }, m);
      }
      return this.view(updated);
    });
  }

  private view(r: ChangeRow): ProfileChangeView {
    return {
      id: r.id,
      userId: r.user_id,
      field: r.field,
      value: this.box.open(r.value_sealed),
      status: r.status,
      dsrJobId: r.dsr_job_id,
      createdAt: new Date(r.created_at),
      decidedAt: r.decided_at ? new Date(r.decided_at) : null,
      note: r.note,
    };
  }
}

function validatePatch(patch: unknown): { self: Record<string, unknown>; verified: Partial<Record<VerifiedField, string>> } {
  if (!patch || typeof patch !== 'object' || Array.isArray(patch)) throw new DomainError('invalid_request', 'The body must be a JSON object');
  const body = patch as Record<string, unknown>;
  const known = [...SELF_MANAGED_FIELDS, ...VERIFIED_FIELDS] as readonly string[];
  for (const k of Object.keys(body)) if (!known.includes(k)) throw new DomainError('invalid_request', `Unknown field: ${k}`);
  if (Object.keys(body).length === 0) throw new DomainError('invalid_request', `Give at least one of: ${known.join(', ')}`);
  const self: Record<string, unknown> = {};
  // The field travels with the error, so a form can mark it without reading the message.
  const invalid = (field: string, message: string) => new FieldsError(message, [{ field, code: 'invalid', message }]);
  const text = (k: string, max: number, v: unknown) => {
    if (v !== null && (typeof v !== 'string' || v.length > max)) throw invalid(k, `${k} must be a string of at most ${max} characters, or null`);
    return v === null ? null : (v as string).trim() || null;
  };
  if ('display_name' in body) self.display_name = text('display_name', 100, body.display_name);
  if ('bio' in body) self.bio = text('bio', 1000, body.bio);
  if ('handle' in body) {
    const h = body.handle;
    if (h !== null && (typeof h !== 'string' || !HANDLE.test(h))) throw invalid('handle', 'handle must be 3 to 30 lower-case letters, digits or underscores, or null');
    self.handle = h;
  }
  if ('public_links' in body) {
    const links = body.public_links;
    if (!Array.isArray(links) || links.length > 10) throw invalid('public_links', 'public_links must be an array of at most 10 https URLs');
    for (const l of links) {
      let ok = false;
      try {
        ok = typeof l === 'string' && l.length <= 2048 && new URL(l).protocol === 'https:';
      } catch {
        ok = false;
      }
      if (!ok) throw invalid('public_links', 'public_links must be an array of at most 10 https URLs');
    }
    self.public_links = links;
  }
  const verified: Partial<Record<VerifiedField, string>> = {};
  if ('legal_name' in body) {
    const v = body.legal_name;
    if (typeof v !== 'string' || v.trim().length < 1 || v.length > 200) throw new DomainError('invalid_request', 'legal_name must be 1 to 200 characters');
    verified.legal_name = v.trim();
  }
  if ('date_of_birth' in body) {
    const v = body.date_of_birth;
    const d = typeof v === 'string' && DATE.test(v) ? new Date(`${v}T00:00:00Z`) : null;
    if (!d || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== v || d.getTime() > Date.now()) throw new DomainError('invalid_request', 'date_of_birth must be a past date as YYYY-MM-DD');
    verified.date_of_birth = v as string;
  }
  if ('nationality' in body) {
    const v = body.nationality;
    if (typeof v !== 'string' || !COUNTRY.test(v)) throw new DomainError('invalid_request', 'nationality must be an ISO 3166 country code in capitals');
    verified.nationality = v;
  }
  return { self, verified };
}
