import type { Config } from '../src/config';
import { LocalDirectoryWormStore } from '../src/audit/local-directory.worm-store';
import { S3ObjectLockWormStore } from '../src/audit/s3-object-lock.worm-store';
import type { WormStore } from '../src/audit/worm-store';

/** S3 with Object Lock when AUDIT_S3_BUCKET is set (credentials from the AWS SDK's usual chain), else the local directory. */
export function wormStoreFor(config: Pick<Config, 'audit'>): WormStore {
  const s3 = config.audit.s3;
  if (s3) return new S3ObjectLockWormStore({ bucket: s3.bucket, region: s3.region, prefix: s3.prefix, endpoint: s3.endpoint, retentionYears: s3.retentionYears });
  return new LocalDirectoryWormStore(config.audit.archiveDir);
}
