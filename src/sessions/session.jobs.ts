import type { JobDefinition } from '../jobs/job-definition';
import { EXPIRE_SESSIONS_JOB } from './session-queues';
import type { SessionService } from './session.service';

/** The sessions' own queue; their checks and test-mode steps are the verification's (src/verification/verification.jobs.ts). */
export const sessionJobs: readonly JobDefinition<{ sessions: Pick<SessionService, 'expireDue'> }>[] = [
  {
    queue: EXPIRE_SESSIONS_JOB,
    worker: ({ sessions }) => ({
      each: async () => {
        while ((await sessions.expireDue()) > 0) {
          /* keep going until no session is overdue */
        }
      },
    }),
    cron: () => '* * * * *',
  },
];
