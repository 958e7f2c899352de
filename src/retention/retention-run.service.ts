import { DataSource } from 'typeorm';
import type { AuditLogService } from '../audit/audit-log.service';
import type { TenantScope } from '../auth/actor';
import { DomainError } from '../errors';
import { randomBase62 } from '../ids';
import type { ArtifactPurger, PurgeOutcome } from '../vault/artifact-purger';
import type { ClassCounts, RetentionReclassifier, TenantCounts } from './retention-reclassifier';
import { systemClock, type Clock } from '../clock';

export const RETENTION_NIGHTLY_JOB = 'retention-nightly';
export const RETENTION_PURGE_JOB = 'retention-purge';
/** 03:15 UTC every night, and every hour at :05. */
export const RETENTION_NIGHTLY_CRON = '15 3 * * *';
export const RETENTION_PURGE_CRON = '5 * * * *';

export type RunKind = 'nightly' | 'hourly' | 'manual';
export type RetentionRunReport = { id: string; kind: RunKind; startedAt: Date; finishedAt: Date | null; reclassified: ClassCounts; purged: ClassCounts };

const MAX_PURGE_PER_RUN = 1_000_000;

/**
 * The scheduled retention work (docs/retention-and-audit.md): the nightly pass (reclassify, then
 * purge) and the hourly purge. Each run leaves a report, in total and per tenant and mode, and one
 * entry in the service's audit log with its counts.
 */
export class RetentionRunService {
  constructor(
    private readonly db: DataSource,
    private readonly reclassifier: RetentionReclassifier,
    private readonly purger: ArtifactPurger,
    private readonly audit: AuditLogService,
    private readonly now: Clock = systemClock,
  ) {}

  nightly(): Promise<RetentionRunReport> {
    return this.run('nightly', true);
  }

  hourly(): Promise<RetentionRunReport> {
    return this.run('hourly', false);
  }

  async run(kind: RunKind, reclassify: boolean): Promise<RetentionRunReport> {
    const id = `rrun_${randomBase62(24)}`;
    const startedAt = this.now();
    await this.db.query(`INSERT INTO retention_runs (id, kind, started_at) VALUES ($1, $2, $3)`, [id, kind, startedAt]);
    const reclassified: TenantCounts = reclassify ? await this.reclassifier.run() : new Map();
    const expired = await this.purger.purgeExpired(MAX_PURGE_PER_RUN);
    const ended = await this.purger.purgeEndedZeroDay(MAX_PURGE_PER_RUN);
    const purged = merge(expired, ended);
    const finishedAt = this.now();
    const totals = { reclassified: sum([...reclassified.values()].map((t) => t.counts)), purged: sum(Object.values(purged).map((p) => p.byClass as ClassCounts)) };
    await this.db.transaction(async (m) => {
      await m.query(`UPDATE retention_runs SET finished_at = $2, reclassified = $3, purged = $4 WHERE id = $1`, [id, finishedAt, JSON.stringify(totals.reclassified), JSON.stringify(totals.purged)]);
      const scopes = new Map<string, { tenantId: string; livemode: boolean; reclassified: ClassCounts; purged: ClassCounts }>();
      for (const [key, t] of reclassified) scopes.set(key, { tenantId: t.tenantId, livemode: t.livemode, reclassified: t.counts, purged: {} });
      for (const [key, p] of Object.entries(purged)) {
        const s = scopes.get(key) ?? { tenantId: p.tenantId, livemode: p.livemode, reclassified: {}, purged: {} };
        s.purged = p.byClass as ClassCounts;
        scopes.set(key, s);
      }
      for (const s of scopes.values()) {
        await m.query(`INSERT INTO retention_run_tenants (run_id, tenant_id, livemode, reclassified, purged) VALUES ($1, $2, $3, $4, $5)`, [
          id,
          s.tenantId,
          s.livemode,
          JSON.stringify(s.reclassified),
          JSON.stringify(s.purged),
        ]);
      }
      await this.audit.append({ tenantId: null, livemode: null, action: 'retention.run', subjectId: id, detail: { kind, reclassified: totals.reclassified, purged: totals.purged, tenants: scopes.size }, at: finishedAt }, m);
    });
    return { id, kind, startedAt, finishedAt, ...totals };
  }

  /** Run reports, newest first: a tenant sees its own counts in its mode, an operator the totals. */
  async runs(scope: TenantScope | 'service', first: number, after?: string | null): Promise<{ runs: RetentionRunReport[]; hasMore: boolean }> {
    if (!Number.isInteger(first) || first < 1 || first > 100) throw new DomainError('invalid_request', 'first must be between 1 and 100');
    const cursor = after ? decodeCursor(after) : null;
    const params: unknown[] = [first + 1];
    let where = 'r.finished_at IS NOT NULL';
    if (cursor) {
      params.push(cursor.startedAt, cursor.id);
      where += ` AND (r.started_at, r.id) < ($${params.length - 1}, $${params.length})`;
    }
    const rows: { id: string; kind: RunKind; started_at: Date; finished_at: Date | null; reclassified: ClassCounts | null; purged: ClassCounts | null }[] =
      scope === 'service'
        ? await this.db.query(`SELECT r.id, r.kind, r.started_at, r.finished_at, r.reclassified, r.purged FROM retention_runs r WHERE ${where} ORDER BY r.started_at DESC, r.id DESC LIMIT $1`, params)
        : await this.db.query(
            `SELECT r.id, r.kind, r.started_at, r.finished_at, t.reclassified, t.purged FROM retention_runs r
             LEFT JOIN retention_run_tenants t ON t.run_id = r.id AND t.tenant_id = $${params.length + 1} AND t.livemode = $${params.length + 2}
             WHERE ${where} ORDER BY r.started_at DESC, r.id DESC LIMIT $1`,
            [...params, scope.tenantId, scope.livemode],
          );
    const runs = rows.slice(0, first).map((r) => ({ id: r.id, kind: r.kind, startedAt: new Date(r.started_at), finishedAt: r.finished_at && new Date(r.finished_at), reclassified: r.reclassified ?? {}, purged: r.purged ?? {} }));
    return { runs, hasMore: rows.length > first };
  }
}

export const encodeRunCursor = (r: RetentionRunReport): string => Buffer.from(`${r.startedAt.toISOString()}|${r.id}`, 'utf8').toString('base64url');

function decodeCursor(c: string): { startedAt: Date; id: string } {
  const [at, id] = Buffer.from(c, 'base64url').toString('utf8').split('|');
  const startedAt = new Date(at);
  if (!id || !/^rrun_[A-Za-z0-9]{24}$/.test(id) || Number.isNaN(startedAt.getTime())) throw new DomainError('invalid_request', 'after is not a cursor this query returned');
  return { startedAt, id };
}

function sum(parts: ClassCounts[]): ClassCounts {
  const out: ClassCounts = {};
  for (const p of parts) for (const [k, n] of Object.entries(p)) out[k] = (out[k] ?? 0) + n;
  return out;
}

function merge(a: PurgeOutcome, b: PurgeOutcome): PurgeOutcome['byScope'] {
  const out: PurgeOutcome['byScope'] = {};
  for (const o of [a, b])
    for (const [key, p] of Object.entries(o.byScope)) {
      const t = (out[key] ??= { tenantId: p.tenantId, livemode: p.livemode, byClass: {} });
      for (const [cls, n] of Object.entries(p.byClass) as [keyof typeof p.byClass, number][]) t.byClass[cls] = (t.byClass[cls] ?? 0) + n;
    }
  return out;
}
