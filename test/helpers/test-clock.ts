import type { TestServer } from './test-server';
import { dbClient } from './hosted-client';

/**
 * A test session walks to its outcome on a clock of its own (2, 5 and 10 s after creation: docs/decisions.md D22),
 * as jobs due at those times. A test that must act before a step (choose the outcome on the page, send a chip
 * read) holds the session's clock: its steps not yet taken are moved a day later, so nothing the machine's load does
 * can make the test's action late. `release` makes them due at once, and the clock goes on as it would have.
 *
 * Returns null when the hold came too late (the step `before` was already taken): the caller tries a new session.
 */
export async function holdTestClock(
  server: Pick<TestServer, 'env'>,
  sessionId: string,
  before: 'processing' | 'terminal',
): Promise<{ release: () => Promise<void> } | null> {
  const db = await dbClient(server);
  const job = `${server.env.JOB_SCHEMA ?? 'pgboss'}.job`;
  try {
    const held = await db.query(
      `UPDATE ${job} SET start_after = start_after + interval '1 day'
        WHERE name = 'test-mode-advance' AND data->>'sessionId' = $1 AND state = 'created' RETURNING data->>'step' AS step`,
      [sessionId],
    );
    const steps = held.rows.map((r: { step: string }) => r.step);
    if (!steps.includes(before)) {
      await release(server, sessionId);
      return null;
    }
    return { release: () => release(server, sessionId) };
  } finally {
    await db.end();
  }
}

/**
 * Makes the test session's clock steps not yet taken due now, for a test that needs the session decided (its fixed
 * outcome) and does not test the walk itself: the steps still run in order through the job queue (each takes the
 * earlier ones: src/verification/test-mode-advance.job.ts), without the 10 s of waiting (issue 44). Harmless when
 * the steps are not queued yet or already taken: the clock then keeps its own pace.
 */
export async function hurryTestClock(server: Pick<TestServer, 'env'>, sessionId: string): Promise<void> {
  await release(server, sessionId);
}

async function release(server: Pick<TestServer, 'env'>, sessionId: string): Promise<void> {
  const db = await dbClient(server);
  try {
    await db.query(
      `UPDATE ${server.env.JOB_SCHEMA ?? 'pgboss'}.job SET start_after = now()
        WHERE name = 'test-mode-advance' AND data->>'sessionId' = $1 AND state = 'created'`,
      [sessionId],
    );
  } finally {
    await db.end();
  }
}
