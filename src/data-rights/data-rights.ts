import type { DataSource } from 'typeorm';
import type { Config } from '../config';
import type { JobQueue } from '../jobs/job-queue';
import type { Accounts } from '../users/accounts';
import type { DsrJobService } from './dsr-job.service';
import { DataExportService } from './export/data-export.service';
import { EXPORT_BUNDLE_LINK, SignedLinks } from '../links/signed-links';
import { ExportSigningKey } from './export/export-signing-key';
import type { ServiceActorIssuer } from '../gateway/service-actor';
import { NoSocialUpstream, SocialDataRights } from './social-upstream';
import { DelegatedRequestService } from './delegated/delegated-request.service';
import { HttpSocialUpstream } from './social-upstream.client';

/** The data-rights parts one process holds besides the DSR jobs themselves (docs/data-rights.md). */
export type DataRights = {
  exports: DataExportService;
  /** Signs export manifests; its public half is served at /v1/.well-known/export-keys. */
  exportKey: ExportSigningKey;
  /** The social service's data-rights contract (or the empty default). */
  social: SocialDataRights;
  /** Tenants' requests on a user's behalf. */
  delegated: DelegatedRequestService;
};

/** Builds the exports, the social upstream's contract and delegated requests; their queues are in data-rights.jobs.ts. */
export async function buildDataRights(deps: { db: DataSource; config: Config; jobs: JobQueue; dsrJobs: DsrJobService; accounts: Accounts; serviceActors: ServiceActorIssuer }): Promise<DataRights> {
  const { db, config, jobs, dsrJobs, accounts, serviceActors } = deps;
  const c = config.dataRights;
  const social: SocialDataRights = c.socialUpstreamUrl
    ? new HttpSocialUpstream({
        baseUrl: c.socialUpstreamUrl,
        token: c.socialUpstreamToken,
        timeoutMs: c.socialTimeoutMs,
        // The same identity header as the gateway proxy: the service itself, acting on one user's request.
        serviceActor: async (userId, dsrId) => serviceActors.sign({ tenant: null, livemode: null, actor: 'service', sub: userId, scope: 'data_rights', request_id: dsrId }),
      })
    : new NoSocialUpstream();
  const exportKey = await ExportSigningKey.load(db);
  const dataExports = new DataExportService(db, dsrJobs, jobs, accounts.box, await SignedLinks.load(db, EXPORT_BUNDLE_LINK, config.publicBaseUrl), c.exportDir);
  const delegated = await DelegatedRequestService.load(
    db,
    { dsrJobs, exports: dataExports, users: accounts.users, mail: accounts.mail },
    { publicBaseUrl: config.publicBaseUrl, allowPrivateTargets: config.webhooks.allowPrivateTargets },
  );
  return {
    exports: dataExports,
    exportKey,
    social,
    delegated,
  };
}
