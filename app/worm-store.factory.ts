import type { Config } from '../src/config';
import { LocalDirectoryWormStore } from '../src/audit/local-directory.worm-store';
import type { WormStore } from '../src/audit/worm-store';

/**
 * S3 with Object Lock when AUDIT_S3_BUCKET is set (credentials from the AWS SDK's usual chain), else the local
 * directory. The S3 store's module (and the AWS SDK under it) is loaded only when it is the one configured.
 */
export async function wormStoreFor(config: Pick<Config, 'audit'>): Promise<WormStore> {
  const s3 = config.audit.s3;
  if (!s3) return new LocalDirectoryWormStore(config.audit.archiveDir);
  const { S3ObjectLockWormStore } = await import('../src/audit/s3-object-lock.worm-store.js');
  return new S3ObjectLockWormStore({ bucket: s3.bucket, region: s3.region, prefix: s3.prefix, endpoint: s3.endpoint, retentionYears: s3.retentionYears });
}
