import type { JsonObject } from '../../../entities/dsr-job.entity';
import type { SocialDataRights } from '../social-upstream';

/** A document for the export; its bytes stream from the vault as the bundle is written. */
export type ExportDocument = { id: string; ext: string; contentType: string; bytes: AsyncIterable<Buffer> | Buffer };

/**
 * Where each entry of the export bundle comes from (docs/data-rights.md, "The export bundle").
 * Streams are read one after another at the pace of the zip writer.
 */
export interface ExportSources {
  /** `profile.json`: display name, handle, public links, bio (and the verified fields and objections). */
  profile(userId: string): Promise<JsonObject>;
  /** The five social collections. */
  social: SocialDataRights;
  /** `verifications.ndjson`: every session bound to the user, with decision and tiers; no biometric data. */
  verifications(userId: string): AsyncIterable<JsonObject>;
  /** `documents/<id>.<ext>`: the ID document images still held, one at a time. */
  documents(userId: string): AsyncIterable<ExportDocument>;
  /** `audit.ndjson`: every audit entry about the user, their sessions, artifacts and requests. */
  audit(userId: string): AsyncIterable<JsonObject>;
  /** `oauth_grants.json`: the apps the user signed into. */
  oauthGrants(userId: string): Promise<JsonObject[]>;
}
