import { DataSource } from 'typeorm';
import { ZERO_DAY_SAFETY_DAYS } from '../vault/artifact-retention';
import { SessionSql } from '../sessions/session.sql';

/** Per tenant and mode, how many artifacts of each class changed. */
export type ClassCounts = Record<string, number>;
export type TenantCounts = Map<string, { tenantId: string; livemode: boolean; counts: ClassCounts }>;

export const DEFAULT_RECLASSIFY_BATCH = 5000;

/**
 * One batch of the nightly pass, as one statement: the next `$2` artifacts by id after `$1`; of
 * those still held, not extended by a regulated tenant, and whose session has not completed
 * (rule 3: completed verifications keep their dates), each gets `retain_until` = stored_at + the
 * tenant's policy now, when that is earlier (rule 2: loosening changes nothing stored); a 0-day
 * class is marked to go at completion. Artifacts of tenants without a policy row kept the
 * defaults they were stored under and are skipped by the join.
 */
const BATCH_SQL = `
WITH batch AS (
  SELECT id FROM artifacts WHERE id > $1 ORDER BY id LIMIT $2
), target AS (
  SELECT a.id,
    CASE WHEN f.days IS NULL THEN a.stored_at + make_interval(years => r.id_document_years)
         WHEN f.days = 0 THEN a.stored_at + make_interval(days => $3::int)
         ELSE a.stored_at + make_interval(days => f.days) END AS until,
    coalesce(f.days = 0, false) AS zero
  FROM batch b
  JOIN artifacts a ON a.id = b.id
  JOIN tenant_retention r ON r.tenant_id = a.tenant_id AND r.livemode = a.livemode
  CROSS JOIN LATERAL (SELECT CASE a.class
      WHEN 'liveness_template' THEN r.biometric_template_days
      WHEN 'face_match_template' THEN r.biometric_template_days
      WHEN 'selfie_image' THEN r.selfie_image_days
      WHEN 'selfie_video' THEN r.selfie_video_days END AS days) f
  WHERE a.purged_at IS NULL AND NOT a.retention_extended AND ${SessionSql.notCompleted('a.session_id')}
), changed AS (
  UPDATE artifacts a SET retain_until = LEAST(a.retain_until, t.until), purge_at_completion = a.purge_at_completion OR t.zero
  FROM target t
  WHERE a.id = t.id AND (t.until < a.retain_until OR (t.zero AND NOT a.purge_at_completion))
  RETURNING a.tenant_id, a.livemode, a.class
)
SELECT (SELECT max(id) FROM batch) AS last_id,
       (SELECT coalesce(json_agg(json_build_array(tenant_id, livemode, class, n)), '[]'::json)
          FROM (SELECT tenant_id, livemode, class, count(*) AS n FROM changed GROUP BY tenant_id, livemode, class) c) AS counts`;

/**
 * The nightly reclassification: set-based SQL over every artifact in id-ordered batches, each its
 * own short statement, so API reads and uploads interleave with it instead of waiting behind one
 * long transaction.
 */
export class RetentionReclassifier {
  constructor(private readonly db: DataSource) {}

  async run(batchSize = DEFAULT_RECLASSIFY_BATCH): Promise<TenantCounts> {
    const out: TenantCounts = new Map();
    for (let after = ''; ; ) {
      const [row]: { last_id: string | null; counts: [string, boolean, string, number | string][] }[] = await this.db.query(BATCH_SQL, [after, batchSize, ZERO_DAY_SAFETY_DAYS]);
      if (!row?.last_id) break;
      for (const [tenantId, livemode, cls, n] of row.counts) {
        const key = `${tenantId}:${livemode}`;
        const entry = out.get(key) ?? { tenantId, livemode, counts: {} };
        entry.counts[cls] = (entry.counts[cls] ?? 0) + Number(n);
        out.set(key, entry);
      }
      after = row.last_id;
    }
    return out;
  }
}
