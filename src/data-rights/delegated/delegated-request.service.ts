import { createHmac, timingSafeEqual } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { InstanceSettingEntity } from '../../../entities';
import type { Actor } from '../../auth/actor';
import { requireTenantKey } from '../../auth/auth.service';
import { DomainError } from '../../errors';
import { randomBase62 } from '../../ids';
import type { SendOptions } from '../../jobs/job-queue';
import type { MailMessage } from '../../mail/mail-outbox';
import type { UserService } from '../../users/user.service';
import { resolveWebhookTarget, type Resolver } from '../../webhooks/ssrf.guard';
import type { DsrJob, DsrJobService } from '../dsr-job.service';
import { DSR_SCOPE } from '../dsr-job-visibility';
import type { DataExportService } from '../export/data-export.service';

export const DSR_CALLBACK_JOB = 'dsr-callback';
export const DSR_EXPIRE_UNCONFIRMED_JOB = 'dsr-expire-unconfirmed';
const SETTING_KEY = 'dsr_confirmation_key';

export type InitiateInput = { user_sub?: unknown; purpose?: unknown; delegated_by_tenant?: unknown; callback_url?: unknown };

type Queue = { send<T extends object>(name: string, data: T, opts?: SendOptions): Promise<void> };

/**
 * A tenant's data request on a user's behalf (docs/data-rights.md, "Delegated requests"): it waits
 * for the user, who gets a message with a signed confirmation link and must be signed in to
 * confirm; then the export runs and its result is POSTed to the tenant's `callback_url`, signed like
 * a webhook. Unconfirmed for 7 days: denied with `not_confirmed`.
 */
export class DelegatedRequestService {
  private constructor(
    private readonly db: DataSource,
    private readonly dsrJobs: DsrJobService,
    private readonly dataExports: DataExportService,
    private readonly users: UserService,
    private readonly mail: { send(m: MailMessage): Promise<unknown> },
    private readonly queue: Queue,
    private readonly key: Buffer,
    private readonly opts: { publicBaseUrl: string; allowPrivateTargets: boolean; resolver?: Resolver },
  ) {
    // A delegated job's outcome, whatever it is, is told to its tenant: queued with the outcome's commit.
    dsrJobs.onSettled(async (job, m) => {
      if (job.delegatedBy && job.callbackUrl) await this.queue.send(DSR_CALLBACK_JOB, { dsrId: job.id }, { within: m, singletonKey: job.id, retryLimit: 8, retryDelaySeconds: 60 });
    });
  }

  static async load(
    db: DataSource,
    deps: { dsrJobs: DsrJobService; exports: DataExportService; users: UserService; mail: { send(m: MailMessage): Promise<unknown> }; queue: Queue },
    opts: { publicBaseUrl: string; allowPrivateTargets: boolean; resolver?: Resolver },
  ): Promise<DelegatedRequestService> {
    const repo = db.getRepository(InstanceSettingEntity);
    await repo.createQueryBuilder().insert().values({ key: SETTING_KEY, value: randomBase62(48) }).orIgnore().execute();
    const row = await repo.findOneByOrFail({ key: SETTING_KEY });
    return new DelegatedRequestService(db, deps.dsrJobs, deps.exports, deps.users, deps.mail, deps.queue, Buffer.from(row.value, 'utf8'), opts);
  }

  /** `POST /v1/developer/dsr/initiate`: 202 with the job and, shown once, the secret that signs its callback. */
  async initiate(actorIn: Actor | null, input: InitiateInput): Promise<{ job: DsrJob; callbackSigningSecret: string }> {
    const actor = requireTenantKey(actorIn, DSR_SCOPE);
    const { user_sub, purpose, delegated_by_tenant, callback_url } = input ?? {};
    if (typeof user_sub !== 'string' || user_sub.length < 1 || user_sub.length > 255) throw new DomainError('invalid_request', 'user_sub must be the subject of the user, as your tenant knows them');
    if (purpose !== 'access') throw new DomainError('invalid_request', 'purpose must be "access" (a copy of the user\'s data)');
    if (delegated_by_tenant !== true) throw new DomainError('invalid_request', 'delegated_by_tenant must be true: the tenant acts for the user');
    if (typeof callback_url !== 'string' || callback_url.length > 2048) throw new DomainError('invalid_request', 'callback_url must be an absolute https URL (http allowed in test mode)');
    // The same address rules as webhook endpoints: https in live mode, never a private or special address.
    await resolveWebhookTarget(callback_url, actor.livemode, this.opts.resolver, { allowPrivate: this.opts.allowPrivateTargets });
    const userId = await this.users.userIdForSubject(actor.tenantId, user_sub);
    const user = userId ? await this.users.findById(userId) : null;
    if (!user || user.state === 'soft_deleted' || user.state === 'purged') throw new DomainError('not_found', 'No user with this user_sub');
    const callbackSigningSecret = `whsec_${randomBase62(32)}`;
    const job = await this.dsrJobs.createDelegated({
      userId: user.id,
      kind: 'export',
      tenant: { tenantId: actor.tenantId, livemode: actor.livemode },
      callbackUrl: callback_url,
      details: { purpose: 'access', delegated_by_tenant: true },
      secretCiphertext: this.dataExports.sealNew({ callback_secret: callbackSigningSecret }),
    });
    const tenantName = await this.tenantName(actor.tenantId);
    await this.mail.send({
      to: user.email,
      subject: `${tenantName} asks for a copy of your data`,
      text: [
        `${tenantName} asked us for a copy of your personal data on your behalf (request ${job.id}).`,
        '',
        'If you asked them to, confirm it while signed in to your account, with this link:',
        this.confirmationUrl(job.id),
        '',
        `Nothing is shared unless you confirm. Without your confirmation the request is cancelled on ${job.confirmBy?.toISOString().slice(0, 10)}.`,
      ].join('\n'),
    });
    return { job, callbackSigningSecret };
  }

  confirmationUrl(dsrId: string): string {
    return `${this.opts.publicBaseUrl}/v1/me/requests/${dsrId}/confirm?token=${this.token(dsrId)}`;
  }

  /** `POST /v1/me/requests/{id}/confirm`: the signed-in user, holding the token of the message, lets the request run. */
  async confirm(userId: string, dsrId: string, token: unknown): Promise<DsrJob> {
    const expected = Buffer.from(this.token(dsrId), 'base64url');
    const given = typeof token === 'string' && /^[A-Za-z0-9_-]{43}$/.test(token) ? Buffer.from(token, 'base64url') : Buffer.alloc(0);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new DomainError('link_invalid', 'This confirmation link is not valid');
    return this.db.transaction(async (m: EntityManager) => {
      const job = await this.dsrJobs.confirm(dsrId, userId, m);
      await this.dataExports.enqueue(job.id, m);
      return job;
    });
  }

  /** Denies every delegated request whose 7 days passed unconfirmed; returns how many. */
  async expireUnconfirmed(now = new Date()): Promise<number> {
    let n = 0;
    for (const id of await this.dsrJobs.unconfirmedBefore(now)) {
      try {
        await this.dsrJobs.deny(id, 'not_confirmed');
        n++;
      } catch (err) {
        if (!(err instanceof DomainError && err.code === 'invalid_state')) throw err; // confirmed meanwhile
      }
    }
    return n;
  }

  private token(dsrId: string): string {
    return createHmac('sha256', this.key).update(`dsr-confirm:${dsrId}`).digest('base64url');
  }

  private async tenantName(tenantId: string): Promise<string> {
    const rows: { name: string }[] = await this.db.query(`SELECT name FROM tenants WHERE id = $1`, [tenantId]);
    return rows[0]?.name ?? 'A service you use';
  }
}
