import type { Readable } from 'node:stream';

/** Where a stored blob lives: the back end's own key, kept on the artifact's metadata row. */
export type BlobLocation = { key: string; sizeBytes: number };

/**
 * Where the vault keeps artifact ciphertext (issue 30): a filesystem under DATA_DIR by default, an
 * S3-compatible bucket when VAULT_S3_BUCKET is set. A blob store only ever sees ciphertext; the
 * metadata row (ArtifactStore) stays in PostgreSQL, written in the session's transaction after the
 * blob is durable. A blob left without a row by a crash between the two is swept later (`list`).
 */
export interface BlobStore {
  /** A short name for logs, metrics and `/readyz`: `fs`, `s3` or `postgres`. */
  readonly kind: string;
  /**
   * Streams `body` to durable storage with back-pressure, never holding it whole, and answers where
   * it is once it is durable. `hint` is the artifact id; a store may use it or choose its own key
   * (the filesystem store names blobs by the ciphertext's SHA-256). `sizeBytes` is the body's exact
   * length when the caller knows it (an upload's Content-Length: AES-GCM keeps lengths); a store that
   * must send a length before the first byte (S3) then streams the body instead of buffering it. An
   * error of the body itself (a refused type, a client gone) is rethrown as it is.
   */
  put(hint: string, body: Readable, sizeBytes?: number): Promise<BlobLocation>;
  /** The blob as a stream, or null when it is not there. */
  get(key: string): Promise<Readable | null>;
  /**
   * Whether each chunk of `get`'s stream is a buffer of its own that nothing else holds, so its reader may free
   * it once read (`releaseBuffer`). The filesystem store's are (one fresh buffer per read); S3's come from an
   * HTTP client that may keep them.
   */
  readonly readChunksAreOwned: boolean;
  /** Removes the blob; removing one that is not there is not an error. */
  delete(key: string): Promise<void>;
  /** Every blob stored before `before`, for the orphan sweep. */
  list(before: Date): AsyncIterable<{ key: string; storedAt: Date }>;
}
