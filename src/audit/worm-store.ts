/**
 * Write-once storage for audit segments. `put` never replaces an object: when the key exists it
 * answers `exists` and leaves it as it is (the replicator then checks the bytes are the same).
 */
export interface WormStore {
  /** A short description for logs and the CLI (no secrets). */
  readonly description: string;
  put(key: string, body: Buffer): Promise<'written' | 'exists'>;
  /** The stored bytes, or null when nothing is stored under the key. */
  get(key: string): Promise<Buffer | null>;
}
