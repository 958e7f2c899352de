import type { Logger } from '../../logger';
import { randomBase62 } from '../../ids';
import type { UserService } from '../../users/user.service';
import { resolveWebhookTarget } from '../../webhooks/ssrf.guard';
import { sendWebhook } from '../../webhooks/webhook.sender';
import { SIGNATURE_HEADER, signatureHeader } from '../../webhooks/webhook.signer';
import type { DsrJobService } from '../dsr-job.service';
import type { DataExportService } from '../export/data-export.service';

export type DsrCallbackData = { dsrId: string };

/**
 * POSTs a delegated request's outcome to its `callback_url` (docs/data-rights.md, "Delegated
 * requests"), signed like a webhook delivery (`Service-Signature: v1,t=..,sig=..` over `<t>.<body>`)
 * with the secret the tenant got from the initiate call. The address is checked again and pinned
 * at each attempt; anything but a 2xx within 10 s throws and pg-boss retries with back-off.
 */
export class DsrCallbackJob {
  constructor(
    private readonly dsrJobs: DsrJobService,
    private readonly dataExports: DataExportService,
    private readonly users: UserService,
    private readonly logger: Logger,
    private readonly opts: { allowPrivateTargets: boolean; timeoutMs: number },
  ) {}

  async run({ dsrId }: DsrCallbackData): Promise<void> {
    const job = await this.dsrJobs.get(dsrId);
    if (!job?.delegatedBy || !job.callbackUrl || job.result?.callback_delivered_at) return;
    const secrets = await this.dataExports.secrets(dsrId);
    if (!secrets.callback_secret) return;
    const delivery = job.status === 'completed' ? await this.dataExports.delivery(job) : null;
    const eventId = `evt_${randomBase62(24)}`;
    const body = JSON.stringify({
      id: eventId,
      type: `dsr.${job.status}`,
      created_at: new Date().toISOString(),
      livemode: job.delegatedBy.livemode,
      data: {
        dsr_id: job.id,
        purpose: 'access',
        status: job.status,
        reason: job.reason,
        user_sub: await this.users.subjectFor(job.userId, job.delegatedBy.tenantId),
        download_url: delivery?.download_url ?? null,
        download_expires_at: delivery?.download_expires_at ?? null,
        // The bundle's documents open only with this key; the tenant asked for the user's copy.
        document_key: delivery?.document_key ?? null,
      },
    });
    const target = await resolveWebhookTarget(job.callbackUrl, job.delegatedBy.livemode, undefined, { allowPrivate: this.opts.allowPrivateTargets });
    const t = Math.floor(Date.now() / 1000);
    const res = await sendWebhook({
      target,
      body,
      headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signatureHeader([secrets.callback_secret], t, body), 'Service-Event-Id': eventId },
      timeoutMs: this.opts.timeoutMs,
      maxBodyBytes: 1024,
    });
    if (res.statusCode === null || res.statusCode < 200 || res.statusCode >= 300) {
      throw new Error(`callback of ${dsrId} answered ${res.statusCode ?? res.error}`);
    }
    await this.dsrJobs.recordResult(dsrId, { ...(job.result ?? {}), callback_delivered_at: new Date().toISOString() });
    this.logger.info({ dsrId, status: job.status }, 'delegated request callback delivered');
  }
}
