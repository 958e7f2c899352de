import type { DataSource } from 'typeorm';
import type { JobDefinition } from '../jobs/job-definition';
import { HostedCaptureRepository } from '../hosted-flow/hosted-capture.repository';
import type { SanctionsScreeningService } from '../sanctions/screening.service';
import { RUN_CHECKS_JOB, TEST_MODE_JOB, type RunChecksData } from '../sessions/session-queues';
import type { SessionService } from '../sessions/session.service';
import type { RunChecksJob } from './run-checks.job';
import { TestModeAdvanceJob, type TestModeAdvanceData } from './test-mode-advance.job';

type VerificationParts = {
  db: DataSource;
  sessions: SessionService;
  sanctionsScreening: SanctionsScreeningService;
  /** RunChecksJob, wrapped by the process in what it owes besides (a busy engine's requeue, a restricted user's pause). */
  runChecks: Pick<RunChecksJob, 'run'>;
};

/** Deciding sessions: a live session's checks, a test-mode session's scripted steps. */
export const verificationJobs: readonly JobDefinition<VerificationParts>[] = [
  {
    queue: TEST_MODE_JOB,
    sentInTransactions: true, // every test-mode creation's transaction, also on an API instance that works no jobs (WORKER_ENABLED=false)
    worker: ({ db, sessions, sanctionsScreening }) => {
      const captures = new HostedCaptureRepository(db);
      const job = new TestModeAdvanceJob(db, sessions, sanctionsScreening, async (sessionId) => (await captures.tierDetails(sessionId)).business);
      return { each: (data: TestModeAdvanceData) => job.run(data), batchSize: 5, localConcurrency: 2 };
    },
  },
  {
    queue: RUN_CHECKS_JOB,
    sentInTransactions: true, // the submit transaction
    // One session per fetch, four in flight per process: a fetched batch runs one job after another, so a batch
    // of two kept the second session waiting for the first's whole run while a worker could have started it, and
    // a session submitted while both were busy waited for a poll. The engines bound the CPU (their own queue).
    worker: ({ runChecks }) => ({ each: (data: RunChecksData) => runChecks.run(data), batchSize: 1, localConcurrency: 4 }),
  },
];
