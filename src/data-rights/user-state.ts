import type { EntityManager } from 'typeorm';
import { DomainError } from '../errors';
import type { UserState } from './user-access.gate';

export type LockedUser = { id: string; state: UserState; objections: { processing: string; objected_at: string }[] };

/** The user's row, locked for the rest of the caller's transaction: data-rights changes of one user happen one at a time. */
export async function lockUser(m: EntityManager, userId: string): Promise<LockedUser> {
  const rows: LockedUser[] = await m.query(`SELECT id, state, objections FROM users WHERE id = $1 FOR UPDATE`, [userId]);
  if (!rows[0]) throw new DomainError('not_found', 'User not found');
  return rows[0];
}

/** Refuses a request from a user who is deleted (their token may outlive the deletion by its few minutes of life). */
export function assertNotDeleted(user: Pick<LockedUser, 'state'>): void {
  if (user.state === 'soft_deleted' || user.state === 'purged') throw new DomainError('not_found', 'User not found');
}

/** The newest DSR job of the user of this kind whose details contain `details` (read in the caller's transaction). */
export async function latestJob(m: EntityManager, userId: string, kind: string, details: Record<string, unknown> = {}): Promise<string | null> {
  const rows: { id: string }[] = await m.query(`SELECT id FROM dsr_jobs WHERE user_id = $1 AND kind = $2 AND details @> $3::jsonb ORDER BY created_at DESC LIMIT 1`, [
    userId,
    kind,
    JSON.stringify(details),
  ]);
  return rows[0]?.id ?? null;
}

/** Rows of an UPDATE ... RETURNING: TypeORM answers UPDATE and DELETE with `[rows, count]`, other statements with the rows. */
export async function updateReturning<T>(m: EntityManager, sql: string, params: unknown[]): Promise<T[]> {
  const out: unknown = await m.query(sql, params);
  return (Array.isArray(out) && Array.isArray(out[0]) ? out[0] : out) as T[];
}
