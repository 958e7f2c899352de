import type { DataSource } from 'typeorm';
import type { Config } from '../config';
import type { JobQueue } from '../jobs/job-queue';
import type { Logger } from '../logger';
import type { Accounts } from '../users/accounts';
import type { EvidenceVault } from '../vault/evidence-vault';
import type { DsrJobService } from './dsr-job.service';
import { AccountExportData } from './export/account-export-data';
import { BuildExportData, BuildExportJob } from './export/build-export.job';
import { DataExportService, EXPORT_CLEANUP_JOB, EXPORT_JOB } from './export/data-export.service';
import { DatabaseExportSources } from './export/database-export-sources';
import { EXPORT_BUNDLE_LINK, SignedLinks } from '../links/signed-links';
import { ExportSigningKey } from './export/export-signing-key';
import type { ServiceActorIssuer } from '../gateway/service-actor';
import { NoSocialUpstream, SocialDataRights } from './social-upstream';
import { DelegatedRequestService, DSR_CALLBACK_JOB, DSR_EXPIRE_UNCONFIRMED_JOB } from './delegated/delegated-request.service';
import { DsrCallbackData, DsrCallbackJob } from './delegated/dsr-callback.job';
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
  /** Registers the data-rights workers on this process. */
  startWorkers(): Promise<void>;
};

export async function buildDataRights(deps: { db: DataSource; config: Config; logger: Logger; jobs: JobQueue; dsrJobs: DsrJobService; accounts: Accounts; vault: EvidenceVault; serviceActors: ServiceActorIssuer }): Promise<DataRights> {
  const { db, config, logger, jobs, dsrJobs, accounts, vault, serviceActors } = deps;
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
  await jobs.ensureQueue(EXPORT_JOB, { notify: true }); // sent to inside the request's transaction
  const dataExports = new DataExportService(db, dsrJobs, jobs, accounts.box, await SignedLinks.load(db, EXPORT_BUNDLE_LINK, config.publicBaseUrl), c.exportDir);
  await jobs.ensureQueue(DSR_CALLBACK_JOB, { notify: true }); // sent to inside the transaction that settles a job
  const delegated = await DelegatedRequestService.load(
    db,
    { dsrJobs, exports: dataExports, users: accounts.users, mail: accounts.mail },
    { publicBaseUrl: config.publicBaseUrl, allowPrivateTargets: config.webhooks.allowPrivateTargets },
  );
  const sources = new DatabaseExportSources(db, vault, new AccountExportData(db, accounts.users), social);
  return {
    exports: dataExports,
    exportKey,
    social,
    delegated,
    startWorkers: async () => {
      const build = new BuildExportJob(dsrJobs, dataExports, sources, exportKey, logger);
      await jobs.work<BuildExportData>(EXPORT_JOB, (data) => build.run(data), { batchSize: 1, localConcurrency: 1 });
      const callback = new DsrCallbackJob(dsrJobs, dataExports, accounts.users, logger, { allowPrivateTargets: config.webhooks.allowPrivateTargets, timeoutMs: config.webhooks.timeoutMs });
      await jobs.work<DsrCallbackData>(DSR_CALLBACK_JOB, (data) => callback.run(data), { batchSize: 1, localConcurrency: 2 });
      await jobs.work(DSR_EXPIRE_UNCONFIRMED_JOB, async () => void (await delegated.expireUnconfirmed()));
      await jobs.schedule(DSR_EXPIRE_UNCONFIRMED_JOB, '*/10 * * * *');
      await jobs.work(EXPORT_CLEANUP_JOB, async () => void (await dataExports.removeExpired()));
      await jobs.schedule(EXPORT_CLEANUP_JOB, '23 * * * *');
    },
  };
}
