import type { EntityManager } from 'typeorm';
import type { ArtifactClass } from './artifact-classes';
import type { RetentionRule } from './artifact-retention';

/** One stored artifact's metadata. The row outlives a purge (with `purgedAt` set and no bytes). */
export type ArtifactRecord = {
  id: string;
  sessionId: string;
  tenantId: string;
  livemode: boolean;
  userId: string | null;
  class: ArtifactClass;
  contentType: string;
  sizeBytes: number;
  sha256: string;
  /** Non-personal capture facts, e.g. a liveness frame's step, nonce and capture time. */
  details: Record<string, unknown>;
  iv: Buffer;
  authTag: Buffer;
  /** Where the ciphertext is in the blob store (src/vault/blob-store.ts); null when it sits in `artifact_blobs` (VAULT_STORE=postgres, or stored before issue 30). */
  blobKey: string | null;
  storedAt: Date;
  retainUntil: Date;
  /** A 0-day class: purged when the session completes (docs/retention-and-audit.md). */
  purgeAtCompletion?: boolean;
  purgedAt: Date | null;
};

/** `details.source` of the artifacts taken from a chip: they are never counted or read as the page's captures. */
export const CHIP_SOURCE = 'chip';
export const isFromChip = (a: Pick<ArtifactRecord, 'details'>): boolean => a.details?.source === CHIP_SOURCE;

/** What a purge tells the purger about each artifact it purged. */
export type PurgedArtifact = { id: string; sessionId: string; tenantId: string; livemode: boolean; class: ArtifactClass; /** The blob the row named until now, to delete once the purge commits. */ blobKey: string | null };

/** Why an insert was refused: the session no longer takes captures (or its page's captures were submitted), or the class is full. */
export type InsertRefusal = { refused: 'session_state'; status: string } | { refused: 'class_full'; max: number } | { refused: 'no_session' } | { refused: 'submitted' };

/** What an insert checks, and how it dates the row, while it holds the session row. */
export type InsertGuard = {
  /** Statuses in which the session still takes artifacts, and the class limit. */
  openStatuses: readonly string[];
  maxPerClass: number;
  /** The page's own uploads: refused once the page's captures were submitted (a T5 session stays in_progress for its chip). */
  refuseSubmitted: boolean;
  /** `retain_until` from the tenant's policy in force at the insert. */
  retention: RetentionRule;
};

/** An artifact before its insert: the store dates it from the retention it reads. */
export type NewArtifact = Omit<ArtifactRecord, 'retainUntil' | 'purgeAtCompletion'>;
export type Inserted = { retainUntil: Date; purgeAtCompletion: boolean };

/**
 * Where the vault keeps artifacts: rows plus already-encrypted bytes. Implementations store
 * opaque ciphertext; encryption and keys live in EvidenceVault, so a store never sees clear bytes.
 */
export interface ArtifactStore {
  /**
   * Inserts the row, or nothing: in one transaction that holds the session row, refusing when the
   * session's status is not one of `openStatuses`, the page's captures were submitted (`refuseSubmitted`) or
   * the session already has `maxPerClass` artifacts of this class; else the row's `retain_until` from the
   * tenant's retention read in the same transaction. The row names its blob (`blobKey`, already durable), or
   * `ciphertext` goes into `artifact_blobs` in the same transaction (VAULT_STORE=postgres).
   */
  insert(row: NewArtifact, ciphertext: Buffer | null, guard: InsertGuard): Promise<InsertRefusal | Inserted>;
  find(id: string): Promise<ArtifactRecord | null>;
  /** The row with the user its session is bound to now (null when unbound), read in one query: an evidence open's checks. */
  findWithSessionUser(id: string): Promise<{ record: ArtifactRecord; sessionUserId: string | null } | null>;
  listBySession(sessionId: string): Promise<ArtifactRecord[]>;
  /** The ciphertext kept in `artifact_blobs` (a row without a blob key). */
  ciphertext(id: string): Promise<Buffer | null>;
  /** Which of these blob keys some artifact row still names: the orphan sweep deletes the others. */
  blobKeysInUse(keys: readonly string[]): Promise<Set<string>>;
  /**
   * Deletes the bytes of these artifacts inside the caller's transaction and keeps their rows with
   * `purged_at`, without capture details or user binding. Returns the rows it purged now (already
   * purged or unknown ids are skipped).
   */
  purgeMany(ids: readonly string[], at: Date, within: EntityManager): Promise<PurgedArtifact[]>;
  /** Ids of unpurged artifacts whose `retain_until` has passed. */
  due(now: Date, limit: number): Promise<string[]>;
}
