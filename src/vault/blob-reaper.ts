import type { EntityManager } from 'typeorm';
import type { JobQueue } from '../jobs/job-queue';
import type { ArtifactStore } from './artifact-store';
import type { BlobStore } from './blob-store';
import { systemClock, type Clock } from '../clock';

/** Deletes the blobs a purge's transaction stopped naming, once (and only if) it commits. */
export const VAULT_DELETE_BLOBS_JOB = 'vault-delete-blobs';
export type DeleteBlobsData = { keys: string[] };
/** The hourly orphan sweep (docs/operations.md, "Evidence vault"). */
export const VAULT_SWEEP_JOB = 'vault-sweep-orphans';
export const VAULT_SWEEP_CRON = '41 * * * *';
/** A blob younger than this may be one whose row is still being inserted: the sweep leaves it. */
export const ORPHAN_AGE_MS = 3_600_000;

const BATCH = 500;

/**
 * Removes blobs no artifact row names. A blob is written before its row (so an upload never holds a
 * transaction open while its body arrives) and deleted after the purge that drops its row's key
 * commits; a crash between the two leaves a blob without a row. Deleting after a purge is checked
 * against the rows too, so a rolled-back purge never loses a blob its row still names.
 */
export class BlobReaper {
  constructor(
    private readonly store: Pick<ArtifactStore, 'blobKeysInUse'>,
    private readonly blobs: BlobStore,
    private readonly jobs: Pick<JobQueue, 'send'> | null,
    private readonly now: Clock = systemClock,
  ) {}

  /** Deletes those of `keys` that no row names; answers how many it deleted. */
  async deleteUnreferenced(keys: readonly string[]): Promise<number> {
    let deleted = 0;
    for (let i = 0; i < keys.length; i += BATCH) {
      const part = keys.slice(i, i + BATCH);
      const inUse = await this.store.blobKeysInUse(part);
      for (const key of part) {
        if (inUse.has(key)) continue;
        await this.blobs.delete(key);
        deleted++;
      }
    }
    return deleted;
  }

  /**
   * Inside the transaction that stops naming `keys` (a purge in the caller's transaction): queues
   * their deletion, which then happens only if that transaction commits.
   */
  async deleteAfterCommit(m: EntityManager, keys: readonly string[]): Promise<void> {
    if (keys.length === 0 || !this.jobs) return;
    await this.jobs.send<DeleteBlobsData>(VAULT_DELETE_BLOBS_JOB, { keys: [...keys] }, { within: m });
  }

  /** Deletes every blob older than `ORPHAN_AGE_MS` that no row names (the scheduled job, and tests). */
  async sweep(olderThanMs = ORPHAN_AGE_MS): Promise<number> {
    const before = new Date(this.now().getTime() - olderThanMs);
    let deleted = 0;
    let batch: string[] = [];
    for await (const { key } of this.blobs.list(before)) {
      batch.push(key);
      if (batch.length < BATCH) continue;
      deleted += await this.deleteUnreferenced(batch);
      batch = [];
    }
    return deleted + (await this.deleteUnreferenced(batch));
  }
}
