import type { EntityManager } from 'typeorm';
import { CoalescingReader } from '../db/coalescing-reader';
import { FieldsError } from '../errors';
import { newId } from '../ids';
import type { Check, SessionResult } from '../../entities/session-result.document';
import type { SessionStatus } from './session-status';

/** What a decision did (docs/decisions.md D16): a person's approve / decline / reverse, or the pipeline's approve / decline / review. */
export type DecisionKind = 'approve' | 'decline' | 'reverse' | 'review';
/** What a person may decide about a session (D16). */
export const HUMAN_DECISIONS = ['approve', 'decline', 'reverse'] as const;
export type HumanDecision = (typeof HUMAN_DECISIONS)[number];

/**
 * A person's decision as given (REST, GraphQL, the console's form), checked once for everyone: a known
 * decision and a reason of at least 3 characters. A FieldsError names each field that is wrong; its
 * message is the first one's.
 */
export function checkedHumanDecision(input: { decision: unknown; reason: unknown }): { decision: HumanDecision; reason: string } {
  const fields: { field: string; code: string; message: string }[] = [];
  if (!(HUMAN_DECISIONS as readonly unknown[]).includes(input.decision)) fields.push({ field: 'decision', code: 'invalid', message: 'decision must be approve, decline or reverse' });
  if (typeof input.reason !== 'string' || input.reason.trim().length < 3) fields.push({ field: 'reason', code: 'invalid', message: 'reason must be at least 3 characters' });
  if (fields.length) throw new FieldsError(fields[0].message, fields);
  return { decision: input.decision as HumanDecision, reason: (input.reason as string).trim() };
}

export type DecisionSource = 'automated' | 'human';

/** One entry of a session's decision history, in the API's shape. */
export type SessionDecision = {
  id: string;
  session_id: string;
  decision: DecisionKind;
  source: DecisionSource;
  reason: string | null;
  reviewer_id: string | null;
  /** Who asked for a human decision: the tenant (API, console) or the end user's review request. */
  requested_by: 'tenant' | 'end_user' | null;
  from_status: SessionStatus;
  to_status: SessionStatus;
  /** Automated decisions: the version of the policy that decided (src/checks/policy). */
  policy_version: string | null;
  /** Automated decisions: the checks the policy read, as they stood. */
  checks: Check[] | null;
  decided_at: string;
};

export type NewDecision = Omit<SessionDecision, 'id' | 'session_id' | 'decided_at' | 'requested_by' | 'policy_version' | 'checks' | 'reason' | 'reviewer_id'> &
  Partial<Pick<SessionDecision, 'requested_by' | 'policy_version' | 'checks' | 'reason' | 'reviewer_id'>>;

/** A row as the driver returns it: the API shape with its time as a Date. */
type Row = Omit<SessionDecision, 'decided_at'> & { decided_at: Date };

/**
 * Appends a decision to the session's history, in the caller's transaction: always the one that
 * changes the session's status under its row lock, so the history and the status never disagree.
 */
export async function recordDecision(
  m: EntityManager,
  session: { id: string; tenantId: string; livemode: boolean },
  d: NewDecision,
  at: Date,
): Promise<SessionDecision> {
  const row = {
    id: newId('vdec'),
    session_id: session.id,
    decision: d.decision,
    source: d.source,
    reason: d.reason ?? null,
    reviewer_id: d.reviewer_id ?? null,
    requested_by: d.requested_by ?? null,
    from_status: d.from_status,
    to_status: d.to_status,
    policy_version: d.policy_version ?? null,
    checks: d.checks ?? null,
    decided_at: at,
  };
  await m.query(
    `INSERT INTO session_decisions (id, session_id, tenant_id, livemode, source, decision, reason, reviewer_id, requested_by, from_status, to_status, policy_version, checks, decided_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [row.id, row.session_id, session.tenantId, session.livemode, row.source, row.decision, row.reason, row.reviewer_id, row.requested_by, row.from_status, row.to_status, row.policy_version, row.checks ? JSON.stringify(row.checks) : null, at],
  );
  return present(row);
}

/** The histories of these sessions, each oldest first, in one statement. */
async function decisionsOf(db: Pick<EntityManager, 'query'>, sessionIds: readonly string[]): Promise<Map<string, SessionDecision[]>> {
  const out = new Map<string, SessionDecision[]>(sessionIds.map((id) => [id, []]));
  if (!sessionIds.length) return out;
  const rows: Row[] = await db.query(
    `SELECT id, session_id, decision, source, reason, reviewer_id, requested_by, from_status, to_status, policy_version, checks, decided_at
       FROM session_decisions WHERE session_id = ANY($1::text[]) ORDER BY decided_at, id`,
    [[...new Set(sessionIds)]],
  );
  for (const r of rows) out.get(r.session_id)?.push(present(r));
  return out;
}

/** The latest decision of a session, under the caller's lock on the session row. */
export async function latestDecision(m: Pick<EntityManager, 'query'>, sessionId: string): Promise<SessionDecision | null> {
  const rows: Row[] = await m.query(
    `SELECT id, session_id, decision, source, reason, reviewer_id, requested_by, from_status, to_status, policy_version, checks, decided_at
       FROM session_decisions WHERE session_id = $1 ORDER BY decided_at DESC, id DESC LIMIT 1`,
    [sessionId],
  );
  return rows.length ? present(rows[0]) : null;
}

function present(r: Row): SessionDecision {
  const checks = typeof r.checks === 'string' ? (JSON.parse(r.checks) as Check[]) : r.checks;
  return { ...r, checks, decided_at: new Date(r.decided_at).toISOString() };
}

const KIND_OF_RESULT: Record<SessionResult['decision'], DecisionKind> = { approved: 'approve', declined: 'decline', review: 'review' };

/**
 * The hook that writes the pipeline's decision into the history, in the transaction that moves the
 * session from `processing` to its decided status (pass it as `within` to SessionService.advance).
 */
export function automatedDecision(result: SessionResult, policyVersion: string) {
  return async (m: EntityManager, s: { id: string; tenantId: string; livemode: boolean; status: string; updatedAt: Date }): Promise<void> => {
    await recordDecision(m, s, { source: 'automated', decision: KIND_OF_RESULT[result.decision], from_status: 'processing', to_status: s.status as SessionStatus, policy_version: policyVersion, checks: result.checks }, s.updatedAt);
  };
}

/**
 * Sessions' decision histories, each oldest first. Reads asked for together (a page of sessions in
 * GraphQL, each asking for its own history) share one statement (CoalescingReader).
 */
export class DecisionHistory {
  private readonly reader: CoalescingReader<string, SessionDecision[]>;

  constructor(db: Pick<EntityManager, 'query'>) {
    this.reader = new CoalescingReader((ids) => decisionsOf(db, ids), (id) => id);
  }

  async of(sessionId: string): Promise<SessionDecision[]> {
    return (await this.reader.read(sessionId)) ?? [];
  }
}
