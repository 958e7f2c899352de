import { DataSource, EntityManager } from 'typeorm';
import type { Actor } from '../../auth/actor';
import { requireTenantKey } from '../../auth/auth.service';
import { DomainError } from '../../errors';
import { randomBase62 } from '../../ids';
import type { RetryPolicy, SendOptions } from '../../jobs/job-queue';
import { SignedLinks, type LinkKind } from '../../links/signed-links';
import type { MailMessage } from '../../mail/mail-outbox';
import type { UserService } from '../../users/user.service';
import { resolveWebhookTarget, type Resolver } from '../../webhooks/ssrf.guard';
import { ACCOUNT_PAGES_PATH } from '../../oidc/first-party-sign-in';
import { NOT_CONFIRMED, type DsrJob, type DsrJobService, type DsrSettledListener } from '../dsr-job.service';
import { DSR_SCOPE } from '../dsr-job-visibility';
import type { DataExportService } from '../export/data-export.service';

export const DSR_CALLBACK_JOB = 'dsr-callback';
/**
 * The tenant's callback may be down for hours: the first retry comes 1-2 minutes after a failure,
 * the wait doubles up to an hour, and the last of 21 attempts comes 15 to 16 hours after the first.
 */
export const DSR_CALLBACK_RETRY: RetryPolicy = { limit: 20, delaySeconds: 60, backoff: true, maxDelaySeconds: 3600 };
export const DSR_EXPIRE_UNCONFIRMED_JOB = 'dsr-expire-unconfirmed';
/**
 * The confirmation link mailed to the user: its own credential for this one request, without expiry (the request
 * itself is denied after 7 days). Its key and purpose are the ones links were signed with before they were a
 * SignedLinks kind, so a link already mailed still opens.
 */
export const DSR_CONFIRMATION_LINK: LinkKind = { settingKey: 'dsr_confirmation_key', purpose: 'dsr-confirm', path: (dsrId) => `${ACCOUNT_PAGES_PATH}/requests/${dsrId}` };

export type InitiateInput = { user_sub?: unknown; purpose?: unknown; delegated_by_tenant?: unknown; callback_url?: unknown };

type Queue = { send<T extends object>(name: string, data: T, opts?: SendOptions): Promise<void> };

/** DsrJobService's settle listener: a delegated job's outcome, whatever it is, is told to its tenant, queued with the outcome's commit. */
export const queueDelegatedCallback =
  (queue: Queue): DsrSettledListener =>
  async (job, m) => {
    if (job.delegatedBy && job.callbackUrl) await queue.send(DSR_CALLBACK_JOB, { dsrId: job.id }, { within: m, singletonKey: job.id, retry: DSR_CALLBACK_RETRY });
  };

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
    private readonly links: SignedLinks,
    private readonly opts: { publicBaseUrl: string; allowPrivateTargets: boolean; resolver?: Resolver },
  ) {}

  static async load(
    db: DataSource,
    deps: { dsrJobs: DsrJobService; exports: DataExportService; users: UserService; mail: { send(m: MailMessage): Promise<unknown> } },
    opts: { publicBaseUrl: string; allowPrivateTargets: boolean; resolver?: Resolver },
  ): Promise<DelegatedRequestService> {
    const links = await SignedLinks.load(db, DSR_CONFIRMATION_LINK, opts.publicBaseUrl);
    return new DelegatedRequestService(db, deps.dsrJobs, deps.exports, deps.users, deps.mail, links, opts);
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
        'Open this link to see what would be shared, then confirm or decline (you will be asked to sign in to your account):',
        this.confirmationUrl(job.id),
        '',
        `Nothing is shared unless you confirm. Without your confirmation the request is cancelled on ${job.confirmBy?.toISOString().slice(0, 10)}.`,
      ].join('\n'),
    });
    return { job, callbackSigningSecret };
  }

  /** The page where the user, signed in, confirms or declines (web/accounts/dsr-confirmation.router.ts). */
  confirmationUrl(dsrId: string): string {
    return this.links.url(dsrId);
  }

  /** Whether `token` is the one the message about this request carried (constant time). */
  isLinkValid(dsrId: string, token: unknown): boolean {
    return this.links.verify(dsrId, token);
  }

  private assertLink(dsrId: string, token: unknown): void {
    if (!this.isLinkValid(dsrId, token)) throw new DomainError('link_invalid', 'This confirmation link is not valid');
  }

  /**
   * What the confirmation page shows the signed-in user: the request and the name of the tenant
   * asking. Another user's request (or one that is not a delegated request) is `not_found`, which
   * tells nothing about it.
   */
  async forUser(userId: string, dsrId: string, token: unknown): Promise<{ job: DsrJob; tenantName: string }> {
    this.assertLink(dsrId, token);
    const job = await this.dsrJobs.getForUser(dsrId, userId);
    if (!job.delegatedBy) throw new DomainError('not_found', 'Data request not found');
    return { job, tenantName: await this.tenantName(job.delegatedBy.tenantId) };
  }

  /** `POST /v1/me/requests/{id}/confirm` and the page's Confirm: the signed-in user, holding the token of the message, lets the request run. */
  async confirm(userId: string, dsrId: string, token: unknown): Promise<DsrJob> {
    this.assertLink(dsrId, token);
    return this.db.transaction(async (m: EntityManager) => {
      const job = await this.dsrJobs.confirm(dsrId, userId, m);
      await this.dataExports.enqueue(job.id, m);
      return job;
    });
  }

  /** The page's Decline: denied with `declined_by_user`, which the tenant's callback reports. */
  async decline(userId: string, dsrId: string, token: unknown): Promise<DsrJob> {
    this.assertLink(dsrId, token);
    return this.dsrJobs.decline(dsrId, userId);
  }

  /** Denies every delegated request whose 7 days passed unconfirmed; returns how many. */
  async expireUnconfirmed(now = new Date()): Promise<number> {
    let n = 0;
    for (const id of await this.dsrJobs.unconfirmedBefore(now)) {
      try {
        await this.dsrJobs.deny(id, NOT_CONFIRMED);
        n++;
      } catch (err) {
        if (!(err instanceof DomainError && err.code === 'invalid_state')) throw err; // confirmed meanwhile
      }
    }
    return n;
  }

  private async tenantName(tenantId: string): Promise<string> {
    const rows: { name: string }[] = await this.db.query(`SELECT name FROM tenants WHERE id = $1`, [tenantId]);
    return rows[0]?.name ?? 'A service you use';
  }
}
