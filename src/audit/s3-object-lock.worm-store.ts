import { GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import type { WormStore } from './worm-store';
import type { Clock } from '../clock';

export type S3WormOptions = {
  bucket: string;
  region: string;
  /** Key prefix inside the bucket, e.g. `audit/`. */
  prefix: string;
  /** Years each segment is locked in compliance mode (nobody, not even the account root, can shorten it). */
  retentionYears: number;
  /** A custom endpoint (S3-compatible storage, or the test server); path-style addressing then. */
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  now?: Clock;
};

/**
 * Audit segments in an S3 bucket with Object Lock: each PUT carries `x-amz-object-lock-mode:
 * COMPLIANCE` and a retain-until date, and `If-None-Match: *` so S3 refuses (412) to replace an
 * existing key. The bucket must have been created with Object Lock enabled (which also turns on
 * versioning); the SDK adds the integrity checksum Object Lock requires.
 */
export class S3ObjectLockWormStore implements WormStore {
  private readonly client: S3Client;

  constructor(private readonly opts: S3WormOptions) {
    this.client = new S3Client({
      region: opts.region,
      ...(opts.endpoint ? { endpoint: opts.endpoint, forcePathStyle: true } : {}),
      ...(opts.credentials ? { credentials: opts.credentials } : {}),
      maxAttempts: 3,
    });
  }

  get description(): string {
    return `s3://${this.opts.bucket}/${this.opts.prefix} (Object Lock, compliance, ${this.opts.retentionYears} years)`;
  }

  async put(key: string, body: Buffer): Promise<'written' | 'exists'> {
    const now = this.opts.now?.() ?? new Date();
    const retainUntil = new Date(now.getTime());
    retainUntil.setUTCFullYear(retainUntil.getUTCFullYear() + this.opts.retentionYears);
    try {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.opts.bucket,
          Key: `${this.opts.prefix}${key}`,
          Body: body,
          ContentType: 'application/x-ndjson',
          IfNoneMatch: '*',
          ObjectLockMode: 'COMPLIANCE',
          ObjectLockRetainUntilDate: retainUntil,
          ChecksumAlgorithm: 'SHA256',
        }),
      );
      return 'written';
    } catch (err) {
      if (err instanceof S3ServiceException && (err.$metadata.httpStatusCode === 412 || err.name === 'PreconditionFailed')) return 'exists';
      throw err;
    }
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.opts.bucket, Key: `${this.opts.prefix}${key}` }));
      return Buffer.from(await r.Body!.transformToByteArray());
    } catch (err) {
      if (err instanceof NoSuchKey || (err instanceof S3ServiceException && err.$metadata.httpStatusCode === 404)) return null;
      throw err;
    }
  }

  close(): void {
    this.client.destroy();
  }
}
