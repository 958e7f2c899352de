import fs from 'node:fs';
import path from 'node:path';
import { DataSource, EntityManager } from 'typeorm';
import { DomainError, notFound } from '../../errors';
import type { RetryPolicy, SendOptions } from '../../jobs/job-queue';
import { addDays } from '../business-days';
import type { DsrJob, DsrJobService } from '../dsr-job.service';
import { newDocumentKey } from './document-envelope';
import { EXPORT_LINK_DAYS, type SignedLinks } from '../../links/signed-links';

export const EXPORT_JOB = 'dsr-export';
/** A failed export run (e.g. the upstream source down) runs again after 30-60 s, then longer, up to 10 minutes apart. */
export const EXPORT_RETRY: RetryPolicy = { limit: 5, delaySeconds: 30, backoff: true, maxDelaySeconds: 600 };
/** Hourly: removes bundles whose download links have expired. */
export const EXPORT_CLEANUP_JOB = 'dsr-export-cleanup';

/** Encrypts job secrets at rest with an instance key (the service's secret box). */
export interface SecretSealer {
  seal(plain: string): string;
  open(sealed: string): string;
}

/** What a job's sealed secret holds. */
export type DsrSecrets = { document_key: string; callback_secret?: string };

/** What the job's user (or its delegating tenant's callback) is told about a finished export. */
export type ExportDelivery = { download_url: string | null; download_expires_at: string | null; document_key: string };

type Queue = { send<T extends object>(name: string, data: T, opts?: SendOptions): Promise<void> };

/**
 * `POST /v1/me/data-export` and what follows (docs/data-rights.md, "The export bundle"): the
 * request makes a DSR job with its own document key (sealed at rest), a durable job builds the
 * bundle, and the user reads the link and key with the job. The link alone opens the zip, never
 * its documents.
 */
export class DataExportService {
  constructor(
    private readonly db: DataSource,
    private readonly dsrJobs: DsrJobService,
    private readonly queue: Queue,
    private readonly box: SecretSealer,
    private readonly links: SignedLinks,
    private readonly exportDir: string,
  ) {}

  /** The user's export: the open one if there is one (asking twice does not build twice), else a new job. */
  async request(userId: string): Promise<DsrJob> {
    return this.db.transaction(async (m) => {
      const open = await this.dsrJobs.findOpen(userId, 'export', m);
      if (open) return open;
      const job = await this.dsrJobs.create({ userId, kind: 'export', secretCiphertext: this.sealNew(), within: m });
      await this.enqueue(job.id, m);
      return job;
    });
  }

  /** Seals a fresh document key (and any other secret of the job) for a new export job. */
  sealNew(extra: Omit<DsrSecrets, 'document_key'> = {}): string {
    return this.box.seal(JSON.stringify({ document_key: newDocumentKey().toString('base64'), ...extra } satisfies DsrSecrets));
  }

  async enqueue(dsrId: string, within?: EntityManager): Promise<void> {
    await this.queue.send(EXPORT_JOB, { dsrId }, { singletonKey: dsrId, retry: EXPORT_RETRY, expireInSeconds: 3600, within });
  }

  async secrets(dsrId: string): Promise<DsrSecrets> {
    const sealed = await this.dsrJobs.secretOf(dsrId);
    if (!sealed) throw new Error(`export ${dsrId} has no sealed key`);
    return JSON.parse(this.box.open(sealed)) as DsrSecrets;
  }

  /** The link and key of an export job, for its own user (or the delegating tenant's callback) only. */
  async delivery(job: DsrJob): Promise<ExportDelivery> {
    const { document_key } = await this.secrets(job.id);
    const expires = typeof job.result?.download_expires_at === 'string' ? new Date(job.result.download_expires_at) : null;
    const live = job.status === 'completed' && expires !== null;
    return {
      download_url: live ? this.links.url(job.id, expires) : null,
      download_expires_at: live ? expires.toISOString() : null,
      document_key,
    };
  }

  /**
   * The account portal's download (D20): the link, and the document key the first time only. The
   * key is marked shown in the same statement that decides it is the first time, so two tabs cannot
   * both see it; afterwards the portal says when it was shown. (`GET /v1/me/requests` still gives
   * an app holding the user's token the key with the job, as D15 says.)
   */
  async portalDownload(userId: string, dsrId: string): Promise<{ job: DsrJob; delivery: ExportDelivery; keyShownNow: boolean; keyShownAt: Date | null }> {
    const job = await this.dsrJobs.getForUser(dsrId, userId);
    if (job.kind !== 'export') throw new DomainError('not_found', 'Data request not found');
    const delivery = await this.delivery(job);
    if (!delivery.download_url) return { job, delivery: { ...delivery, document_key: '' }, keyShownNow: false, keyShownAt: null };
    const now = new Date();
    if (await this.dsrJobs.markDocumentKeyShown(dsrId, userId, now)) return { job, delivery, keyShownNow: true, keyShownAt: now };
    const shownAt = typeof job.result?.document_key_shown_at === 'string' ? new Date(job.result.document_key_shown_at) : now;
    return { job, delivery: { ...delivery, document_key: '' }, keyShownNow: false, keyShownAt: shownAt };
  }

  /** When a bundle finished now stops being downloadable. */
  static expiresAt(finishedAt: Date): Date {
    return addDays(finishedAt, EXPORT_LINK_DAYS);
  }

  bundlePath(dsrId: string): string {
    if (!/^dsr_[A-Za-z0-9]{24}$/.test(dsrId)) throw new DomainError('not_found', 'No such export');
    return path.join(this.exportDir, `${dsrId}.zip`);
  }

  /** Deletes bundles whose 7 days are over (and `.part` files a crash left); returns how many. */
  async removeExpired(now = new Date()): Promise<number> {
    const cutoff = now.getTime() - EXPORT_LINK_DAYS * 86_400_000;
    let names: string[];
    try {
      names = await fs.promises.readdir(this.exportDir);
    } catch {
      return 0;
    }
    let removed = 0;
    for (const name of names) {
      if (!/^dsr_[A-Za-z0-9]{24}\.zip(\.part)?$/.test(name)) continue;
      const file = path.join(this.exportDir, name);
      const stat = await fs.promises.stat(file).catch(() => null);
      if (stat && stat.mtimeMs < cutoff) {
        await fs.promises.rm(file, { force: true });
        removed++;
      }
    }
    return removed;
  }

  /** The bundle a pre-signed link names: its file and size, or the link's error. */
  async openBundle(dsrId: string, expires: unknown, sig: unknown): Promise<{ file: string; size: number }> {
    const check = this.links.check(dsrId, expires, sig);
    if (check === 'invalid') throw new DomainError('link_invalid', 'This download link is not valid');
    if (check === 'expired') throw new DomainError('gone', 'This download link has expired; ask for a new export');
    // From the moment of an erasure the bundle is not there for anyone (issue #25, finding 8): the
    // user's state is read now, and a purge deletes the job. A restricted user still gets their export.
    const owner: { state: string }[] = await this.db.query(`SELECT u.state FROM dsr_jobs j JOIN users u ON u.id = j.user_id WHERE j.id = $1 AND j.kind = 'export'`, [dsrId]);
    if (!owner.length || owner[0].state === 'soft_deleted' || owner[0].state === 'purged') throw notFound('Export');
    const file = this.bundlePath(dsrId);
    try {
      return { file, size: (await fs.promises.stat(file)).size };
    } catch {
      throw new DomainError('gone', 'This export is no longer kept; ask for a new export');
    }
  }
}
