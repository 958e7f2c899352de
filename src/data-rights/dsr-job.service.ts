import { DataSource, EntityManager, In, IsNull } from 'typeorm';
import { DsrJobEntity } from '../../entities';
import type { JsonObject } from '../../entities/dsr-job.entity';
import type { TenantScope } from '../auth/actor';
import type { AuditEntryInput } from '../audit/audit-entry';
import { updatedRows } from '../db/updated-rows';
import { DomainError } from '../errors';
import { newId } from '../ids';
import { SessionSql } from '../sessions/session.sql';
import { addDays } from './business-days';
import { CONFIRMATION_DAYS, dsrDeadlines } from './dsr-deadlines';
import { assertDsrTransition, DsrKind, DsrStatus, isDsrKind, isDsrStatus, OPEN_DSR_STATUSES, SETTLED_DSR_STATUSES } from './dsr-job-status';
import { systemClock, type Clock } from '../clock';


/** Reasons of a denied delegated request (docs/data-rights.md, "Delegated requests"), told to the tenant's callback. */
export const NOT_CONFIRMED = 'not_confirmed';
export const DECLINED_BY_USER = 'declined_by_user';

/** A DSR job as the domain sees it (the row minus its sealed secret). */
export type DsrJob = {
  id: string;
  userId: string;
  kind: DsrKind;
  status: DsrStatus;
  reason: string | null;
  details: JsonObject;
  result: JsonObject | null;
  /** Set for a delegated request: the tenant (and mode) that initiated it. */
  delegatedBy: TenantScope | null;
  callbackUrl: string | null;
  createdAt: Date;
  receivedAt: Date;
  acknowledgeBy: Date;
  expectedBy: Date;
  confirmBy: Date | null;
  confirmedAt: Date | null;
  startedAt: Date | null;
  completedAt: Date | null;
  updatedAt: Date;
};

export type CreateDsrJob = {
  userId: string;
  kind: DsrKind;
  details?: JsonObject;
  /** Already sealed by the caller (an export's document key); returned only by `secretOf`. */
  secretCiphertext?: string;
  /** Create inside this transaction, so the job exists exactly when the change it records commits. */
  within?: EntityManager;
};

export type CreateDelegatedDsrJob = Omit<CreateDsrJob, 'within'> & { tenant: TenantScope; callbackUrl: string; within?: EntityManager };

/**
 * `sliceOfTenant` (a tenant client's user token, D20): only the requests about that tenant: the
 * ones it initiated and reviews of its sessions; never the user's whole-account requests.
 */
export type DsrJobFilter = { userId?: string; tenant?: TenantScope; sliceOfTenant?: string; kind?: DsrKind; status?: DsrStatus; first?: number };

/**
 * Runs inside the transaction that settles a job (completed, denied or failed), so what follows
 * from it (the delegated callback) is queued exactly when the outcome commits.
 */
export type DsrSettledListener = (job: DsrJob, manager: EntityManager) => Promise<void>;

/**
 * Every data-subject request, of every kind, is a row here and moves only through
 * src/data-rights/dsr-job-status.ts (docs/data-rights.md, "DSR jobs"). The work of each kind is a
 * pg-boss job owned by that kind's module; it calls `start`, `complete`, `deny` or `fail` here.
 */
export type { JsonObject };

export class DsrJobService {
  constructor(
    private readonly db: DataSource,
    /**
     * Writes each step of every request to the audit log, in the transaction of the step: the
     * service log, and the delegating tenant's log for a delegated request.
     */
    private readonly auditTrail: (entries: AuditEntryInput[], within: EntityManager) => Promise<unknown>,
    private readonly onSettled: DsrSettledListener,
    private readonly now: Clock = systemClock,
  ) {}

  private async audit(job: DsrJob, m: EntityManager): Promise<void> {
    const detail = { kind: job.kind, status: job.status, ...(job.reason ? { reason: job.reason } : {}) };
    const entry = { action: `dsr.${job.status}`, subjectId: job.id };
    await this.auditTrail(
      [
        { tenantId: null, livemode: null, ...entry, detail: { ...detail, user_id: job.userId } },
        // The tenant's copy names no user id: tenants know users only by their own pairwise subject.
        ...(job.delegatedBy ? [{ tenantId: job.delegatedBy.tenantId, livemode: job.delegatedBy.livemode, ...entry, detail }] : []),
      ],
      m,
    );
  }

  /** A request by the signed-in user: `received` at once, with its deadlines. */
  async create(input: CreateDsrJob): Promise<DsrJob> {
    const now = this.now();
    return this.insert(input.within, {
      ...this.baseRow(input, now),
      status: 'received',
      ...dsrDeadlines(input.kind, now),
    });
  }

  /**
   * A tenant's request on a user's behalf: it waits in `awaiting_confirmation` for at most
   * CONFIRMATION_DAYS. Its deadlines are provisional until the user confirms (the clock of a
   * delegated request starts when the user authorises it).
   */
  async createDelegated(input: CreateDelegatedDsrJob): Promise<DsrJob> {
    const now = this.now();
    return this.insert(input.within, {
      ...this.baseRow(input, now),
      status: 'awaiting_confirmation',
      tenantId: input.tenant.tenantId,
      livemode: input.tenant.livemode,
      callbackUrl: input.callbackUrl,
      confirmBy: addDays(now, CONFIRMATION_DAYS),
      ...dsrDeadlines(input.kind, now),
    });
  }

  /** The user authorised a delegated request: it is received now, and its deadlines start now. */
  async confirm(id: string, userId: string, within?: EntityManager): Promise<DsrJob> {
    const now = this.now();
    return this.move(id, 'received', within, (job) => {
      if (job.userId !== userId) throw new DomainError('not_found', 'Data request not found');
      if (job.confirmBy && job.confirmBy.getTime() <= now.getTime()) throw new DomainError('invalid_state', 'This request was not confirmed in time');
      return { confirmedAt: now, receivedAt: now, ...dsrDeadlines(job.kind, now) };
    });
  }

  /** The user said no to a delegated request: denied with `declined_by_user`, only while it awaits their confirmation. */
  async decline(id: string, userId: string, within?: EntityManager): Promise<DsrJob> {
    return this.move(id, 'denied', within, (job) => {
      if (job.userId !== userId) throw new DomainError('not_found', 'Data request not found');
      if (job.status !== 'awaiting_confirmation') throw new DomainError('invalid_state', `The data request is ${job.status}, not awaiting confirmation`);
      return { completedAt: this.now(), reason: DECLINED_BY_USER };
    });
  }

  async start(id: string, within?: EntityManager): Promise<DsrJob> {
    return this.move(id, 'in_progress', within, () => ({ startedAt: this.now() }));
  }

  async complete(id: string, result: JsonObject | null = null, within?: EntityManager): Promise<DsrJob> {
    return this.move(id, 'completed', within, (job) => ({ completedAt: this.now(), result: result ?? job.result }));
  }

  /** Closes the request without doing it; `reason` is a short stable code such as `not_confirmed`. */
  async deny(id: string, reason: string, within?: EntityManager): Promise<DsrJob> {
    return this.move(id, 'denied', within, () => ({ completedAt: this.now(), reason }));
  }

  async fail(id: string, reason: string, within?: EntityManager): Promise<DsrJob> {
    return this.move(id, 'failed', within, () => ({ completedAt: this.now(), reason }));
  }

  /** Replaces the job's details (a running job's own bookkeeping, such as its attempt count). */
  async recordDetails(id: string, details: JsonObject, within?: EntityManager): Promise<void> {
    await (within ?? this.db.manager).query(`UPDATE dsr_jobs SET details = $2, updated_at = $3 WHERE id = $1`, [id, JSON.stringify(details), this.now()]);
  }

  /** Records what a running job has so far (e.g. an export's link) without settling it. */
  async recordResult(id: string, result: JsonObject, within?: EntityManager): Promise<void> {
    await (within ?? this.db.manager).query(`UPDATE dsr_jobs SET result = $2, updated_at = $3 WHERE id = $1`, [id, JSON.stringify(result), this.now()]);
  }

  /**
   * Marks an export's document key shown to its user, in the statement that decides it was not yet:
   * true for the one call that marked it (two tabs cannot both be first).
   */
  async markDocumentKeyShown(id: string, userId: string, at: Date): Promise<boolean> {
    const marked = updatedRows<{ id: string }>(
      await this.db.query(
        `UPDATE dsr_jobs SET result = coalesce(result, '{}'::jsonb) || jsonb_build_object('document_key_shown_at', $3::text)
          WHERE id = $1 AND user_id = $2 AND (result->>'document_key_shown_at') IS NULL RETURNING id`,
        [id, userId, at.toISOString()],
      ),
    );
    return marked.length > 0;
  }

  async get(id: string, within?: EntityManager): Promise<DsrJob | null> {
    const row = await (within ?? this.db.manager).getRepository(DsrJobEntity).findOneBy({ id });
    return row ? toDsrJob(row) : null;
  }

  /** The job if it belongs to this user; `not_found` otherwise (another user's id is not told apart from none). */
  async getForUser(id: string, userId: string): Promise<DsrJob> {
    const job = await this.get(id);
    if (!job || job.userId !== userId) throw new DomainError('not_found', 'Data request not found');
    return job;
  }

  /** The user's open request of this kind, if any: asking twice returns the first instead of a second job. */
  async findOpen(userId: string, kind: DsrKind, within?: EntityManager): Promise<DsrJob | null> {
    const row = await (within ?? this.db.manager).getRepository(DsrJobEntity).findOne({
      where: { userId, kind, status: In([...OPEN_DSR_STATUSES]), tenantId: IsNull() },
      order: { createdAt: 'DESC' },
    });
    return row ? toDsrJob(row) : null;
  }

  /** Newest first. Callers pass the visibility rule: a user's own, or a tenant's delegated ones. */
  async list(filter: DsrJobFilter): Promise<DsrJob[]> {
    const qb = this.db.getRepository(DsrJobEntity).createQueryBuilder('j').orderBy('j.created_at', 'DESC').addOrderBy('j.id', 'DESC');
    if (filter.userId) qb.andWhere('j.user_id = :userId', { userId: filter.userId });
    if (filter.tenant) qb.andWhere('j.tenant_id = :tenantId AND j.livemode = :livemode', filter.tenant);
    if (filter.sliceOfTenant)
      qb.andWhere(
        `(j.tenant_id = :slice OR (j.kind = 'review' AND ${SessionSql.isOfTenant("j.details->>'verification_id'", ':slice')}))`,
        { slice: filter.sliceOfTenant },
      );
    if (filter.kind) qb.andWhere('j.kind = :kind', { kind: filter.kind });
    if (filter.status) qb.andWhere('j.status = :status', { status: filter.status });
    qb.take(Math.min(Math.max(filter.first ?? 50, 1), 200));
    return (await qb.getMany()).map(toDsrJob);
  }

  /** The sealed secret of a job, for the one reader allowed to open it (the job's user, or its callback). */
  async secretOf(id: string): Promise<string | null> {
    const row = await this.db.getRepository(DsrJobEntity).findOne({ where: { id }, select: { id: true, secretCiphertext: true } });
    return row?.secretCiphertext ?? null;
  }

  /** Delegated requests whose confirmation window ended: the expiry job denies them. */
  async unconfirmedBefore(at: Date, limit = 100): Promise<string[]> {
    const rows = await this.db
      .getRepository(DsrJobEntity)
      .createQueryBuilder('j')
      .select('j.id', 'id')
      .where(`j.status = 'awaiting_confirmation' AND j.confirm_by <= :at`, { at })
      .orderBy('j.confirm_by')
      .limit(limit)
      .getRawMany<{ id: string }>();
    return rows.map((r) => r.id);
  }

  /** Every job row of a user (the hard purge deletes them with the user). */
  async deleteForUser(userId: string, within?: EntityManager): Promise<number> {
    const res = await (within ?? this.db.manager).getRepository(DsrJobEntity).delete({ userId });
    return res.affected ?? 0;
  }

  private baseRow(input: CreateDsrJob, now: Date): Partial<DsrJobEntity> {
    if (!isDsrKind(input.kind)) throw new DomainError('invalid_request', `Unknown data request kind ${String(input.kind)}`);
    return {
      id: newId('dsr'),
      userId: input.userId,
      kind: input.kind,
      reason: null,
      details: input.details ?? {},
      result: null,
      tenantId: null,
      livemode: null,
      callbackUrl: null,
      secretCiphertext: input.secretCiphertext ?? null,
      createdAt: now,
      receivedAt: now,
      confirmBy: null,
      confirmedAt: null,
      startedAt: null,
      completedAt: null,
      updatedAt: now,
    };
  }

  private async insert(within: EntityManager | undefined, row: Partial<DsrJobEntity>): Promise<DsrJob> {
    const run = async (m: EntityManager): Promise<DsrJob> => {
      await m.getRepository(DsrJobEntity).insert(row);
      const job = toDsrJob(row as DsrJobEntity);
      await this.audit(job, m);
      return job;
    };
    return within ? run(within) : this.db.transaction(run);
  }

  /**
   * One transition: read the row locked, check the state machine, write it only if the status is
   * still the one read (a concurrent mover loses with `invalid_state`), and tell the settled
   * listeners in the same transaction.
   */
  private async move(id: string, to: DsrStatus, within: EntityManager | undefined, patch: (job: DsrJob) => Partial<DsrJobEntity>): Promise<DsrJob> {
    const run = async (m: EntityManager): Promise<DsrJob> => {
      const repo = m.getRepository(DsrJobEntity);
      const row = await repo.findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!row) throw new DomainError('not_found', 'Data request not found');
      const job = toDsrJob(row);
      assertDsrTransition(job.status, to);
      const changes: Partial<DsrJobEntity> = { ...patch(job), status: to, updatedAt: this.now() };
      const res = await repo.update({ id, status: job.status }, changes);
      if (!res.affected) throw new DomainError('invalid_state', `The data request is no longer ${job.status}`);
      const moved = toDsrJob({ ...row, ...changes } as DsrJobEntity);
      await this.audit(moved, m);
      if (SETTLED_DSR_STATUSES.includes(to)) await this.onSettled(moved, m);
      return moved;
    };
    return within ? run(within) : this.db.transaction(run);
  }
}

export function toDsrJob(row: DsrJobEntity): DsrJob {
  if (!isDsrKind(row.kind) || !isDsrStatus(row.status)) throw new Error(`dsr_jobs row ${row.id} has an unknown kind or status`);
  return {
    id: row.id,
    userId: row.userId,
    kind: row.kind,
    status: row.status,
    reason: row.reason,
    details: row.details,
    result: row.result,
    delegatedBy: row.tenantId !== null && row.livemode !== null ? { tenantId: row.tenantId, livemode: row.livemode } : null,
    callbackUrl: row.callbackUrl,
    createdAt: row.createdAt,
    receivedAt: row.receivedAt,
    acknowledgeBy: row.acknowledgeBy,
    expectedBy: row.expectedBy,
    confirmBy: row.confirmBy,
    confirmedAt: row.confirmedAt,
    startedAt: row.startedAt,
    completedAt: row.completedAt,
    updatedAt: row.updatedAt,
  };
}
