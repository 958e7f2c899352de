import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Logger } from '../../logger';
import type { DsrJobService } from '../dsr-job.service';
import { SOCIAL_COLLECTIONS } from '../social-upstream';
import { DataExportService } from './data-export.service';
import { ExportBundleWriter } from './export-bundle.writer';
import type { ExportSigningKey } from './export-signing-key';
import type { ExportSources } from './export-sources';
import { systemClock, type Clock } from '../../clock';

export type BuildExportData = { dsrId: string };

/** After this many failed runs the request is `failed` instead of retried again. */
export const MAX_EXPORT_ATTEMPTS = 5;

/**
 * Builds one export bundle (docs/data-rights.md, "The export bundle"): every entry streamed into a
 * zip file under EXPORT_DIR (written as `.part`, renamed when whole), then the job completes with
 * the link's expiry. Idempotent: a settled job is left alone, and a run after a crash starts the
 * file again.
 */
export class BuildExportJob {
  constructor(
    private readonly dsrJobs: DsrJobService,
    private readonly dataExports: DataExportService,
    private readonly sources: ExportSources,
    private readonly signingKey: ExportSigningKey,
    private readonly logger: Logger,
    private readonly now: Clock = systemClock,
  ) {}

  async run({ dsrId }: BuildExportData): Promise<void> {
    let job = await this.dsrJobs.get(dsrId);
    if (!job || job.kind !== 'export' || !['received', 'in_progress'].includes(job.status)) return;
    if (job.status === 'received') job = await this.dsrJobs.start(dsrId);
    const attempts = Number(job.details.attempts ?? 0) + 1;
    await this.dsrJobs.recordDetails(dsrId, { ...job.details, attempts });
    const file = this.dataExports.bundlePath(dsrId);
    const part = `${file}.part`;
    try {
      await fs.promises.mkdir(path.dirname(file), { recursive: true });
      const started = performance.now();
      const manifest = await this.write(job.userId, dsrId, job.createdAt, part);
      await fs.promises.rename(part, file);
      const finished = this.now();
      const size = (await fs.promises.stat(file)).size;
      await this.dsrJobs.complete(dsrId, {
        download_expires_at: DataExportService.expiresAt(finished).toISOString(),
        size_bytes: size,
        entries: manifest.entries.length,
      });
      this.logger.info({ dsrId, sizeBytes: size, ms: Math.round(performance.now() - started) }, 'export bundle built');
    } catch (err) {
      await fs.promises.rm(part, { force: true });
      if (attempts >= MAX_EXPORT_ATTEMPTS) {
        this.logger.error({ err, dsrId, attempts }, 'export failed for good');
        await this.dsrJobs.fail(dsrId, 'export_failed');
        return;
      }
      throw err;
    }
  }

  private async write(userId: string, dsrId: string, createdAt: Date, file: string) {
    const { document_key } = await this.dataExports.secrets(dsrId);
    const writer = new ExportBundleWriter({ jobId: dsrId, createdAt, signingKey: this.signingKey, documentKey: Buffer.from(document_key, 'base64') });
    const out = fs.createWriteStream(file);
    const written = pipeline(writer.output, out);
    try {
      await writer.addJson('profile.json', await this.sources.profile(userId));
      for (const collection of SOCIAL_COLLECTIONS) await writer.addNdjson(`${collection}.ndjson`, this.sources.social.read(userId, collection));
      await writer.addNdjson('verifications.ndjson', this.sources.verifications(userId));
      for await (const doc of this.sources.documents(userId)) await writer.addDocument(doc.id, doc.ext, doc.contentType, doc.bytes);
      await writer.addNdjson('audit.ndjson', this.sources.audit(userId));
      await writer.addJson('oauth_grants.json', await this.sources.oauthGrants(userId));
      const manifest = await writer.finish();
      await written;
      return manifest;
    } catch (err) {
      writer.output.destroy();
      out.destroy();
      await written.catch(() => undefined);
      throw err;
    }
  }
}
