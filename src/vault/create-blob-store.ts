import type { Config } from '../config';
import { ConfigError } from '../config';
import type { BlobStore } from './blob-store';
import { FsBlobStore } from './fs-blob-store';

/**
 * The blob store VAULT_STORE names (docs/operations.md, "Evidence vault"). Null for `postgres`: the
 * ciphertext then goes into `artifact_blobs` in the row's own transaction, as before issue 30. The S3
 * store's module (and the AWS SDK under it) is loaded only when it is the one named.
 */
export async function createBlobStore(config: Pick<Config, 'vault'>): Promise<BlobStore | null> {
  switch (config.vault.store) {
    case 'fs':
      return new FsBlobStore(config.vault.dir);
    case 's3':
      // loadConfig refuses VAULT_STORE=s3 without a bucket; this guards a hand-built config.
      if (!config.vault.s3) throw new ConfigError('Invalid configuration: VAULT_S3_BUCKET: required when VAULT_STORE is s3');
      return (await import('./s3-blob-store.js')).s3BlobStoreFromConfig(config.vault.s3);
    case 'postgres':
      return null;
  }
}
