import type { Config } from '../config';
import { ConfigError } from '../config';
import type { BlobStore } from './blob-store';
import { FsBlobStore } from './fs-blob-store';

/**
 * The blob store VAULT_STORE names (docs/operations.md, "Evidence vault"). Null for `postgres`: the
 * ciphertext then goes into `artifact_blobs` in the row's own transaction, as before issue 30.
 */
export function createBlobStore(config: Pick<Config, 'vault'>): BlobStore | null {
  switch (config.vault.store) {
    case 'fs':
      return new FsBlobStore(config.vault.dir);
    case 's3':
      // The S3-compatible store (src/vault/s3-blob-store.ts) plugs in here.
      throw new ConfigError('VAULT_STORE=s3 is not available in this build');
    case 'postgres':
      return null;
  }
}
