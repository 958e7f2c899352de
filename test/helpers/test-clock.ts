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
