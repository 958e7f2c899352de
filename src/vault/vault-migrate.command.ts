import { Readable } from 'node:stream';
import type { BlobStore } from './blob-store';
import type { PostgresArtifactStore } from './postgres-artifact-store';

export type MigrateProgress = (done: number, total: number, bytes: number) => void;
export type MigrateOutcome = { moved: number; bytes: number; skipped: number };

const BATCH = 100;

/**
 * `npm run cli -- vault migrate --to fs|s3`: moves every unpurged artifact whose ciphertext is still
 * in `artifact_blobs` into `blobs`, one at a time: the blob is written and made durable, then one
 * transaction points the row at it and drops the bytea. Resumable by construction: a moved row
 * names its blob and is not selected again, so a second run after an interruption moves only the
 * rest. A crash between the blob and its row leaves a blob no row names, which the orphan sweep
 * deletes; a row purged or moved meanwhile counts as skipped and its new blob is deleted at once.
 */
export async function migrateToBlobStore(store: PostgresArtifactStore, blobs: BlobStore, progress: MigrateProgress = () => undefined): Promise<MigrateOutcome> {
  const total = await store.countInDatabase();
  const outcome: MigrateOutcome = { moved: 0, bytes: 0, skipped: 0 };
  progress(0, total, 0);
  let after = '';
  for (;;) {
    const ids = await store.inDatabase(after, BATCH);
    if (ids.length === 0) break;
    for (const id of ids) {
      const ciphertext = await store.ciphertext(id);
      if (ciphertext) {
        const blob = await blobs.put(id, Readable.from([ciphertext]));
        if (await store.movedToBlob(id, blob.key)) {
          outcome.moved++;
          outcome.bytes += blob.sizeBytes;
        } else {
          await blobs.delete(blob.key);
          outcome.skipped++;
        }
      } else outcome.skipped++;
      progress(outcome.moved + outcome.skipped, total, outcome.bytes);
    }
    after = ids[ids.length - 1];
  }
  return outcome;
}

/** A one-line progress bar for a terminal, redrawn in place with `\r`. */
export function terminalProgress(out: NodeJS.WriteStream): MigrateProgress {
  const width = 30;
  return (done, total, bytes) => {
    const share = total === 0 ? 1 : Math.min(1, done / total);
    const filled = Math.round(share * width);
    out.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} artifacts, ${(bytes / 1024 / 1024).toFixed(1)} MiB${done >= total ? '\n' : ''}`);
  };
}
