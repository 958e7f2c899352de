import { DataSource } from 'typeorm';
import type { JsonObject } from '../../../entities/dsr-job.entity';
import { SessionDataRightsQueries, type SessionOfUserForExport } from '../../sessions/session-data-rights.queries';
import { SessionSql } from '../../sessions/session.sql';
import type { EvidenceVault } from '../../vault/evidence-vault';
import type { SocialDataRights } from '../social-upstream';
import type { ExportDocument, ExportSources } from './export-sources';

/** Profile and sign-in grants come from the accounts module; this is all the export needs of it. */
export interface ExportAccountData {
  profile(userId: string): Promise<JsonObject>;
  oauthGrants(userId: string): Promise<JsonObject[]>;
}

const BATCH = 500;

const EXTENSIONS: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp', 'image/heic': 'heic', 'application/pdf': 'pdf', 'application/json': 'json' };

/**
 * The export's sources in our own database (and the social upstream), read in keyset-paged
 * batches so a user with many sessions or audit entries is streamed like one with few.
 */
export class DatabaseExportSources implements ExportSources {
  constructor(
    private readonly db: DataSource,
    private readonly vault: EvidenceVault,
    private readonly accounts: ExportAccountData,
    readonly social: SocialDataRights,
  ) {}

  profile(userId: string): Promise<JsonObject> {
    return this.accounts.profile(userId);
  }

  oauthGrants(userId: string): Promise<JsonObject[]> {
    return this.accounts.oauthGrants(userId);
  }

  /** Decision, tiers, badges and each check's outcome; never scores, signals, templates or images. */
  async *verifications(userId: string): AsyncIterable<JsonObject> {
    for await (const s of this.sessions(userId)) {
      yield {
        id: s.id,
        tenant_id: s.tenant_id,
        livemode: s.livemode,
        requested_tier: s.tier,
        status: s.status,
        decision: s.result?.decision ?? null,
        achieved_tier: s.result?.achieved_tier ?? null,
        badges: s.result?.badges ?? [],
        checks: (s.result?.checks ?? []).map((c) => ({ name: c.name, status: c.status })),
        created_at: s.created_at.toISOString(),
        completed_at: s.completed_at?.toISOString() ?? null,
      };
    }
  }

  async *documents(userId: string): AsyncIterable<ExportDocument> {
    for await (const s of this.sessions(userId)) {
      for (const record of await this.vault.list(s.id)) {
        // A digital ID's presentation is the ID document of a session that used one (D24): exported like the photo.
        if ((record.class !== 'id_document_image' && record.class !== 'digital_id_presentation') || record.purgedAt) continue;
        const { body } = await this.vault.stream(record);
        if (body) yield { id: record.id, ext: EXTENSIONS[record.contentType] ?? 'bin', contentType: record.contentType, bytes: body };
      }
    }
  }

  /** Entries about the user, any of their sessions, artifacts or data requests, oldest first. */
  async *audit(userId: string): AsyncIterable<JsonObject> {
    let after = '0';
    for (;;) {
      const rows: { seq: string; public_id: string; tenant_id: string | null; livemode: boolean | null; action: string; subject_id: string; detail: JsonObject; created_at: Date; hash: string }[] = await this.db.query(
        `SELECT a.seq, a.public_id, a.tenant_id, a.livemode, a.action, a.subject_id, a.detail, a.created_at, a.hash
           FROM audit_log a
          WHERE a.seq > $2
            AND (a.subject_id = $1
                 OR a.detail->>'user_id' = $1
                 OR a.subject_id IN ${SessionSql.idsOfUser('$1')}
                 OR a.subject_id IN (SELECT id FROM artifacts WHERE user_id = $1 OR session_id IN ${SessionSql.idsOfUser('$1')})
                 OR a.subject_id IN (SELECT id FROM dsr_jobs WHERE user_id = $1))
          ORDER BY a.seq LIMIT ${BATCH}`,
        [userId, after],
      );
      for (const r of rows) {
        yield { id: r.public_id, tenant_id: r.tenant_id, livemode: r.livemode, action: r.action, subject_id: r.subject_id, detail: r.detail, created_at: new Date(r.created_at).toISOString(), hash: r.hash };
      }
      if (rows.length < BATCH) return;
      after = rows[rows.length - 1].seq;
    }
  }

  private async *sessions(userId: string): AsyncIterable<SessionOfUserForExport> {
    let after = '';
    for (;;) {
      const rows = await SessionDataRightsQueries.pageOfUserForExport(this.db, userId, after, BATCH);
      yield* rows;
      if (rows.length < BATCH) return;
      after = rows[rows.length - 1].id;
    }
  }
}
