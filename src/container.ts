import type { GraphQLSchema } from 'graphql';
import { DataSource } from 'typeorm';
import { buildGraphQLSchema } from '../schema/build-schema';
import { ApiKeyResolver } from '../schema/api-key.resolver';
import { SessionResolver } from '../schema/session.resolver';
import { AuthService } from './auth/auth.service';
import type { Config } from './config';
import { ContextFactory } from './context';
import { Database, openDatabase } from './db/database';
import { HostedLinks } from './hosted/hosted-links';
import { JobQueue } from './jobs/job-queue';
import { startWorkers } from './jobs/workers';
import type { Logger } from './logger';
import { SessionService } from './sessions/session.service';
import { TenantService } from './tenants/tenant.service';

/** Every long-lived object of one process, built once and wired by hand. */
export type Container = {
  config: Config;
  logger: Logger;
  database: Database;
  db: DataSource;
  jobs: JobQueue;
  auth: AuthService;
  tenants: TenantService;
  sessions: SessionService;
  links: HostedLinks;
  contexts: ContextFactory;
  schema: GraphQLSchema;
  close(): Promise<void>;
};

export async function buildContainer(config: Config, logger: Logger): Promise<Container> {
  const database = await openDatabase(config);
  const db = database.dataSource;
  let jobs: JobQueue;
  try {
    jobs = await JobQueue.start(database.target, logger, { pollSeconds: config.jobPollSeconds, supervise: config.workerEnabled });
  } catch (err) {
    await database.close();
    throw err;
  }
  const auth = new AuthService(db);
  const tenants = new TenantService(db);
  const sessions = new SessionService(db, jobs);
  const links = await HostedLinks.load(db, config.publicBaseUrl);
  const contexts = new ContextFactory(auth, sessions);
  const resolvers = new Map<unknown, unknown>([
    [SessionResolver, new SessionResolver(sessions, links)],
    [ApiKeyResolver, new ApiKeyResolver(tenants)],
  ]);
  const schema = buildGraphQLSchema({ get: (cls) => resolvers.get(cls) });
  if (config.workerEnabled) await startWorkers(jobs, { db, sessions });

  return {
    config,
    logger,
    database,
    db,
    jobs,
    auth,
    tenants,
    sessions,
    links,
    contexts,
    schema,
    close: async () => {
      await jobs.stop();
      await database.close();
    },
  };
}
