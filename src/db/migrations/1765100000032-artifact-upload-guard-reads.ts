import { MigrationInterface, QueryRunner } from 'typeorm';
import { ArtifactUploadGuard1765100000031 } from './1765100000031-artifact-upload-guard';

/**
 * The upload guard takes over the two reads an upload still made before its row went in (bench:hosted, issue 44):
 * whether the page's captures were already submitted (`hosted_captures`) and the retention in force
 * (`tenant_retention`). Both are read after the session row's lock is granted, so a submit or a retention change
 * committed meanwhile is seen, which the reads before the body could not promise. `retain_until` and
 * `purge_at_completion` are computed here from the rule the caller passes (retentionRuleFor in
 * src/vault/artifact-retention.ts: which policy field, its default, years or days, the 0-day safety days): years
 * are added in UTC (29 February becomes 28 February), days as 24-hour steps, as the vault's retentionFor did in
 * JavaScript. `refused` is null when the row may
 * go in; then `retain_until` and `purge_at_completion` are set.
 */
export class ArtifactUploadGuardReads1765100000032 implements MigrationInterface {
  name = 'ArtifactUploadGuardReads1765100000032';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION artifact_insert_refusal(text, text[], text, boolean, integer)`);
    await q.query(`CREATE FUNCTION artifact_insert_refusal(p_session_id text, p_open_statuses text[], p_class text, p_from_page boolean, p_max_per_class integer,
        p_refuse_submitted boolean, p_stored_at timestamptz, p_retention_field text, p_retention_default integer, p_retention_in_years boolean, p_zero_day_safety_days integer,
        OUT refused text, OUT status text, OUT retain_until timestamptz, OUT purge_at_completion boolean)
      LANGUAGE plpgsql VOLATILE AS $$
      DECLARE n bigint; v integer; s_tenant text; s_livemode boolean;
      BEGIN
        SELECT s.status, s.tenant_id, s.livemode INTO status, s_tenant, s_livemode FROM sessions s WHERE s.id = p_session_id FOR UPDATE;
        IF NOT FOUND THEN refused := 'no_session'; RETURN; END IF;
        IF NOT (status = ANY (p_open_statuses)) THEN refused := 'session_state'; RETURN; END IF;
        -- A T5 session stays in_progress after its captures were submitted: what was submitted is what the checks read.
        IF p_refuse_submitted AND EXISTS (SELECT 1 FROM hosted_captures h WHERE h.session_id = p_session_id AND h.submitted_at IS NOT NULL) THEN
          refused := 'submitted'; RETURN;
        END IF;
        -- What the service took from a T5 chip (its portrait is an id_document_image) leaves the page's upload limits alone.
        SELECT count(*) INTO n FROM artifacts a WHERE a.session_id = p_session_id AND a.class = p_class AND (a.details->>'source' IS DISTINCT FROM 'chip') = p_from_page;
        IF n >= p_max_per_class THEN refused := 'class_full'; RETURN; END IF;
        SELECT CASE p_retention_field
                 WHEN 'biometric_template_days' THEN r.biometric_template_days
                 WHEN 'selfie_image_days' THEN r.selfie_image_days
                 WHEN 'selfie_video_days' THEN r.selfie_video_days
                 WHEN 'id_document_years' THEN r.id_document_years
               END INTO v
          FROM tenant_retention r WHERE r.tenant_id = s_tenant AND r.livemode = s_livemode;
        v := coalesce(v, p_retention_default);
        purge_at_completion := NOT p_retention_in_years AND v = 0;
        IF p_retention_in_years THEN
          retain_until := ((p_stored_at AT TIME ZONE 'UTC') + make_interval(years => v)) AT TIME ZONE 'UTC';
        ELSE
          retain_until := p_stored_at + (CASE WHEN v = 0 THEN p_zero_day_safety_days ELSE v END) * interval '24 hours';
        END IF;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION artifact_insert_refusal(text, text[], text, boolean, integer, boolean, timestamptz, text, integer, boolean, integer)`);
    await new ArtifactUploadGuard1765100000031().up(q);
  }
}
