import { TEST_MODE_JOB } from './session-queues';
import { assertReturnUrl } from '../validation/return-url';
import { DataSource, EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { OutboxEventEntity, SessionEntity } from '../../entities';
import { Actor, TenantKeyActor, TenantScope } from '../auth/actor';
import { newClientSecret } from '../auth/secrets';
import { DomainError, notFound } from '../errors';
import { newId, SESSION_ID_PATTERN, sha256Hex } from '../ids';
import type { AuditEntryInput } from '../audit/audit-entry';
import type { JobQueue } from '../jobs/job-queue';
import type { PreparedSql } from '../db/prepared-sql';
import { SessionResult } from '../../entities/session-result.document';
import { checkedHumanDecision, latestDecision, recordDecision, type SessionDecision } from './decision-history';
import { SessionReader } from './session-reader';
import { SessionFlows, type SessionFlow } from './session-flows';
import { SessionCreateStatement } from './session-create.statement';
import { assertTransition, COMPLETING_STATUSES, SessionStatus } from './session-status';
import { insertOutboxEvents, outboxEventsForTransition, verificationEventFor } from './session-events';
import { testOutcomeOf } from './test-mode-outcome';
import { testIdentityOf } from './sanctions-check';
import { AVAILABLE_TIERS, badgesForPassedChecks, checksForTier, isTier, Tier, tierRank } from './tiers';
import { assertAcceptableMetadata } from '../validation/input-limits';
import { systemClock, type Clock } from '../clock';

export const SESSION_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** How long after completion a decision may be reversed (docs/decisions.md D16). */
export const REVERSAL_WINDOW_MS = 90 * 24 * 60 * 60 * 1000;
export const TEST_MODE_STEPS = [
  { step: 'in_progress', afterMs: 2_000 },
  { step: 'processing', afterMs: 5_000 },
  { step: 'terminal', afterMs: 10_000 },
] as const;
export type TestModeStep = (typeof TEST_MODE_STEPS)[number]['step'];

export type CreateSessionCommand = {
  flowId?: string;
  tier: Tier;
  referenceId?: string | null;
  /** The tenant's subject of the user this session verifies (docs/accounts-and-oidc.md). */
  userSub?: string | null;
  redirectUrl?: string | null;
  locale?: string | null;
  metadata?: Record<string, unknown> | null;
};

/** A session kept by a user at the end of its hosted flow (`bindFinished`), or why it was not. */
export type BindOutcome = { bound: SessionEntity } | { refused: 'not_finished' | 'bound_to_another_user' };

export type SessionPage = { sessions: SessionEntity[]; hasNextPage: boolean };
export type ListSessionsQuery = { first: number; after?: string | null; status?: SessionStatus | null; referenceId?: string | null };


/** Called after a transaction that wrote outbox rows has committed, with the session as committed. */
export type CommittedEventsListener = (events: OutboxEventEntity[], session: SessionEntity) => void;

/**
 * Runs inside the transaction that wrote outbox rows, after the insert: work it queues with `m`
 * (e.g. webhook delivery jobs) commits or rolls back with the state change itself.
 */
export type OutboxHandler = ((m: EntityManager, events: OutboxEventEntity[]) => Promise<void>) & {
  /**
   * The events it acts on (the filter it runs first); without it, every event. A creation whose
   * events no handler wants is written in one statement with no transaction around it (`create`).
   */
  readonly wants?: (e: OutboxEventEntity) => boolean;
};

/** Work done under the session's row lock, in the transition's transaction. */
export type TransitionHooks = {
  /** Skips the step (as an illegal one is skipped) when it answers true. */
  unless?: (m: EntityManager, s: SessionEntity) => Promise<boolean>;
  /** Runs after the change is written and before the commit: its writes commit with it. */
  within?: (m: EntityManager, s: SessionEntity) => Promise<void>;
};

const LOCALE_PATTERN = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

/**
 * A rule applied to every read of a session by id after its visibility (e.g. the data-rights
 * rule of src/data-rights/user-access.gate.ts): returns the session, null to hide it, or throws.
 */
export type SessionReadGuard = (actor: Actor | MemberDecider, s: SessionEntity | null) => Promise<SessionEntity | null>;

/**
 * A member of the tenant's staff deciding in the console (src/console, docs/console.md): the tenant's
 * sessions of both modes; the member's id is the decision's reviewer and is audited with it.
 */
export type MemberDecider = { kind: 'console_member'; memberId: string; tenantId: string };
/** Who may decide a session (docs/decisions.md D16): a tenant key with `sessions:review`, or a console member. */
export type Decider = TenantKeyActor | MemberDecider;

/**
 * The tenant's rule on decisions that end in a decline (the second reviewer, src/console/second-reviewer-rule.ts),
 * asked by every human decision under the session's row lock: one place, whatever the path (issue 40, finding 4).
 */
export type DeclineRule = {
  /** Before a decline (or a reverse to one) is made: go on, or `held` (recorded as pending, nothing decided); throws when refused. */
  decline(m: EntityManager, s: SessionEntity, decider: Decider, reason: string, kind: 'decline' | 'reverse'): Promise<'proceed' | 'held'>;
  /** After a decision is recorded: its pending decline is spent (`declined`) or dropped (audited). `decider` null: the end user's review. */
  settled(m: EntityManager, s: SessionEntity, decider: Decider | null, declined: boolean): Promise<void>;
};

/** A human decision's outcome: the decision, or null when the rule holds a decline for a second reviewer. */
export type DecideOutcome = { session: SessionEntity; decision: SessionDecision | null };

/**
 * What SessionService asks of end users and their data rights (docs/accounts-and-oidc.md,
 * docs/data-rights.md). The service defines it so that src/sessions never imports src/users or
 * src/data-rights; app/container.ts fills it from the accounts and the user access gate.
 */
export type SessionPolicies = {
  /** The user a tenant's `user_sub` names, or null: a session can be bound only to a user who signed in to that tenant. */
  userOfSubject(tenantId: string, sub: string): Promise<string | null>;
  /** The tenant's pairwise subject of a user, made the first time. */
  subjectOf(userId: string, tenantId: string): Promise<string>;
  /** Throws when no session may be bound to the user now (restricted: `user_restricted`; deleted: `not_found`). */
  assertBindable(userId: string): Promise<void>;
  /** Applied to every read by id after its visibility. */
  guardRead: SessionReadGuard;
  /** The same rule on lists: an SQL condition (alias `s`) a session must meet to appear in a tenant's list. */
  listCondition: string;
  /** The second-reviewer rule on declines (always set by app/container.ts; unit tests without it have no tenant that turned it on). */
  declines?: DeclineRule;
};

/** What a session's writes cause besides its own row. */
export type SessionEffects = {
  /** Human decisions, to the tenant's audit log, in the transaction of the decision. */
  audit: (entry: AuditEntryInput, within: EntityManager) => Promise<unknown>;
  /** Run one after another in every transaction that writes outbox rows. */
  outboxHandlers: readonly OutboxHandler[];
  /** Hears the events once their transaction has committed. */
  committed: CommittedEventsListener;
};

export class SessionService {
  /** Sessions by id, coalesced (the read every module that needs a session's row goes through). */
  readonly reader: SessionReader;
  private readonly flows: SessionFlows;
  private readonly createStatement: SessionCreateStatement;

  constructor(
    private readonly db: DataSource,
    sql: PreparedSql,
    private readonly jobs: Pick<JobQueue, 'sendJobs' | 'insertStatement'>,
    private readonly policies: SessionPolicies,
    private readonly effects: SessionEffects,
    private readonly now: Clock = systemClock,
  ) {
    this.reader = new SessionReader(db, sql);
    this.flows = new SessionFlows(sql);
    this.createStatement = new SessionCreateStatement(db, sql);
  }

  private async userOfSubject(tenantId: string, sub: string): Promise<string> {
    if (typeof sub !== 'string' || sub.length < 1 || sub.length > 255) throw new DomainError('invalid_request', 'user_sub must be 1 to 255 characters');
    const userId = await this.policies.userOfSubject(tenantId, sub);
    if (!userId) throw new DomainError('invalid_request', 'user_sub is not the subject of a user who signed in to this tenant');
    try {
      await this.policies.assertBindable(userId);
    } catch (err) {
      // A deleted user's subject reads like an unknown one (no existence oracle); a restricted user's is 409 user_restricted.
      if (err instanceof DomainError && err.code === 'not_found') throw new DomainError('invalid_request', 'user_sub is not the subject of a user who signed in to this tenant');
      throw err;
    }
    return userId;
  }

  /**
   * Binds a session whose hosted flow has ended (success, failed or manual_review) to the user who
   * signed in at its end to keep it (docs/accounts-and-oidc.md, "Keeping a verification"). The rules
   * of binding at creation hold (`assertBindable`: never a restricted or deleted user). The session's
   * verification event is written again, now with the tenant's `user_sub`, and goes through the
   * outbox handlers like every event: the tenant's webhook, and the user's service_verification
   * exactly as for a session created with `user_sub`. Keeping it again for the same user changes nothing.
   */
  async bindFinished(id: string, userId: string): Promise<BindOutcome> {
    await this.policies.assertBindable(userId);
    const tenant = await this.db.getRepository(SessionEntity).findOne({ where: { id }, select: { id: true, tenantId: true } });
    if (!tenant) throw notFound();
    // Made before the transaction (a session's tenant never changes): its own write, not under the session's lock.
    const userSub = await this.policies.subjectOf(userId, tenant.tenantId);
    type Done = { refused: 'not_finished' | 'bound_to_another_user' } | { bound: SessionEntity; events: OutboxEventEntity[] };
    const outcome = await this.db.transaction(async (m: EntityManager): Promise<Done> => {
      const s = await m.getRepository(SessionEntity).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!s) throw notFound();
      if (!COMPLETING_STATUSES.includes(s.status as SessionStatus)) return { refused: 'not_finished' };
      if (s.userId) return s.userId === userId ? { bound: s, events: [] } : { refused: 'bound_to_another_user' };
      const now = this.now();
      Object.assign(s, { userId, userSub, updatedAt: now });
      await m.getRepository(SessionEntity).update({ id }, { userId, userSub, updatedAt: now });
      const event = verificationEventFor(s, now);
      const events = event ? [event] : [];
      if (events.length) await insertOutboxEvents(m, events);
      await this.handleOutbox(m, events);
      return { bound: s, events };
    });
    if ('refused' in outcome) return outcome;
    if (outcome.events.length) this.announce(outcome.events, outcome.bound);
    return { bound: outcome.bound };
  }

  /** The session if it is bound to this user; null otherwise (the account pages show a kept verification to its user only). */
  async boundTo(id: string, userId: string): Promise<SessionEntity | null> {
    const s = await this.db.getRepository(SessionEntity).findOneBy({ id, userId });
    return s ?? null;
  }

  private async handleOutbox(m: EntityManager, events: OutboxEventEntity[]): Promise<void> {
    for (const h of this.effects.outboxHandlers) await h(m, events);
  }

  async create(actor: TenantKeyActor, cmd: CreateSessionCommand): Promise<{ session: SessionEntity; clientSecret: string }> {
    const flowId = cmd.flowId ?? 'default';
    /** A session built on the flow as the database had it, which the transaction below may write as it is. */
    let builtOnReadFlow: { session: SessionEntity; clientSecret: string } | undefined;
    // A remembered flow first; read afresh when the write finds it changed (SessionFlows), or when it
    // refused the command (a stale flow must not refuse a tier its flow now allows).
    for (let attempt = 0; attempt < 3; attempt++) {
      const remembered = attempt === 0 ? this.flows.remembered(actor.tenantId, flowId) : undefined;
      let built: { session: SessionEntity; clientSecret: string };
      try {
        built = await this.newSession(actor, cmd, { flows: new Map(remembered ? [[flowId, Promise.resolve(remembered)]] : []) });
      } catch (err) {
        if (remembered && err instanceof DomainError) continue;
        throw err;
      }
      if (!remembered) builtOnReadFlow = built;
      const flow = remembered ?? this.flows.remembered(actor.tenantId, flowId)!;
      const events = outboxEventsForTransition(built.session, null, built.session.createdAt);
      if (this.effects.outboxHandlers.some((h) => !h.wants || events.some(h.wants))) break; // their work needs a transaction
      const jobs = testModeJobs([built.session]);
      const jobStatement = jobs.length ? await this.jobs.insertStatement(TEST_MODE_JOB, jobs) : null;
      if (jobs.length && !jobStatement) break;
      const written = await this.createStatement.write(built.session, events, flow.version, jobStatement);
      if (!written) {
        builtOnReadFlow = undefined; // its flow changed since
        this.flows.forget(actor.tenantId, flowId);
        continue;
      }
      this.announce(written, built.session);
      return built;
    }
    // The general path: one transaction, every outbox handler in it (also when the flow kept changing under the statement).
    const built = builtOnReadFlow ?? (await this.newSession(actor, cmd));
    const events = await this.db.transaction((m) => this.insertNew(m, [built.session]));
    this.announce(events, built.session);
    return built;
  }

  /**
   * Creates many sessions by the create's own rules in one transaction (bulk import, src/bulk-import).
   * Each command is built first; one that breaks a rule is handed to `work` among `refused` with its
   * error, the others among `built`. `work` runs in the transaction: it decides which of `built` to
   * write (`tx.write`: the rows, their outbox rows and webhook work, the test-mode clock, one INSERT
   * each) and does its own bookkeeping there too. The sessions written are announced once it commits.
   */
  async createMany<K, T>(
    actor: TenantKeyActor,
    commands: { key: K; command: CreateSessionCommand }[],
    work: (tx: BulkCreateTransaction<K>) => Promise<T>,
    opts: { flows?: Map<string, Promise<SessionFlow>>; createdAt?: Date } = {},
  ): Promise<T> {
    const built: { key: K; session: SessionEntity }[] = [];
    const refused: { key: K; error: DomainError }[] = [];
    for (const { key, command } of commands) {
      try {
        built.push({ key, session: (await this.newSession(actor, command, opts)).session });
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        refused.push({ key, error: err });
      }
    }
    const written: { events: OutboxEventEntity[]; sessions: SessionEntity[] } = { events: [], sessions: [] };
    const result = await this.db.transaction((m) =>
      work({
        m,
        built,
        refused,
        existingReferences: (refs) => existingReferences(m, actor, refs),
        write: async (sessions) => {
          written.events.push(...(await this.insertNew(m, sessions)));
          written.sessions.push(...sessions);
        },
      }),
    );
    this.announceCreated(written.events, written.sessions);
    return result;
  }

  /**
   * Validates a create command and builds the new session's row, writing nothing: the one set of
   * create rules, used by `create` and `createMany`. `flows` lets a caller building many sessions
   * look each flow up once; `createdAt` gives a batch one creation time.
   */
  private async newSession(
    actor: TenantKeyActor,
    cmd: CreateSessionCommand,
    opts: { flows?: Map<string, Promise<SessionFlow>>; createdAt?: Date } = {},
  ): Promise<{ session: SessionEntity; clientSecret: string }> {
    if (!isTier(cmd.tier)) throw new DomainError('invalid_request', 'tier must be one of T0..T6');
    if (!AVAILABLE_TIERS.includes(cmd.tier)) throw new DomainError('tier_not_available', `Tier ${cmd.tier} is not available yet`);
    const metadata = cmd.metadata ?? {};
    if (typeof metadata !== 'object' || Array.isArray(metadata)) throw new DomainError('invalid_request', 'metadata must be an object');
    assertAcceptableMetadata(metadata);
    if (!actor.livemode) testOutcomeOf(metadata); // validates; the outcome itself is read when the session resolves
    if (!actor.livemode) testIdentityOf(metadata); // validates the identity a test-mode T3/T4 session screens
    if (cmd.referenceId != null && (cmd.referenceId.length < 1 || cmd.referenceId.length > 255)) {
      throw new DomainError('invalid_request', 'reference_id must be 1 to 255 characters');
    }
    if (cmd.redirectUrl != null) assertReturnUrl(cmd.redirectUrl, 'redirect_url', actor.livemode);
    if (cmd.locale != null && !LOCALE_PATTERN.test(cmd.locale)) throw new DomainError('invalid_request', 'locale must be a BCP 47 tag such as en-US');

    const flowId = cmd.flowId ?? 'default';
    let lookup = opts.flows?.get(flowId);
    if (!lookup) {
      lookup = this.flows.read(actor.tenantId, flowId);
      opts.flows?.set(flowId, lookup);
    }
    const flow = await lookup;
    if (tierRank(cmd.tier) > tierRank(flow.maxTier as Tier)) {
      throw new DomainError('invalid_request', `Flow ${cmd.flowId ?? 'default'} allows tiers up to ${flow.maxTier}`);
    }

    // A bound session (docs/accounts-and-oidc.md): the subject must be one this tenant knows.
    const userId = cmd.userSub == null ? null : await this.userOfSubject(actor.tenantId, cmd.userSub);
    const id = newId('vses');
    const clientSecret = newClientSecret(id);
    const createdAt = opts.createdAt ?? this.now();
    const session = Object.assign(new SessionEntity(), {
      id,
      tenantId: actor.tenantId,
      livemode: actor.livemode,
      flowId: flow.id,
      tier: cmd.tier,
      status: 'created',
      referenceId: cmd.referenceId ?? null,
      redirectUrl: cmd.redirectUrl ?? flow.redirectUrl,
      locale: cmd.locale ?? flow.locale,
      metadata,
      result: null,
      clientSecretHash: sha256Hex(clientSecret),
      createdAt,
      updatedAt: createdAt,
      completedAt: null,
      expiresAt: new Date(createdAt.getTime() + SESSION_LIFETIME_MS),
      userId,
      userSub: cmd.userSub ?? null,
    } satisfies SessionEntity);
    return { session, clientSecret };
  }

  /**
   * Writes sessions built by `newSession` in the caller's transaction: the rows, their outbox rows
   * and the outbox handlers' work with one INSERT each, and the test-mode clock's jobs (D4).
   * Returns the outbox rows; the caller announces them after its commit (`announceCreated`).
   */
  private async insertNew(m: EntityManager, sessions: SessionEntity[]): Promise<OutboxEventEntity[]> {
    if (sessions.length === 0) return [];
    // jsonb columns defeat TypeORM's deep-partial typing; the entities are complete here.
    await m.insert(SessionEntity, sessions as QueryDeepPartialEntity<SessionEntity>[]);
    const rows = sessions.flatMap((s) => outboxEventsForTransition(s, null, s.createdAt));
    await insertOutboxEvents(m, rows);
    await this.handleOutbox(m, rows);
    // Every test-mode session's clock steps (D4), all in one INSERT: a single creation's three jobs were three round trips.
    await this.jobs.sendJobs(TEST_MODE_JOB, testModeJobs(sessions), { within: m });
    return rows;
  }

  /** Tells the listeners (subscriptions) of sessions written by `insertNew`, once their transaction has committed. */
  private announceCreated(events: OutboxEventEntity[], sessions: SessionEntity[]): void {
    const byId = new Map(sessions.map((s) => [s.id, s]));
    const bySession = new Map<string, OutboxEventEntity[]>();
    for (const e of events) {
      if (!e.sessionId) continue;
      const list = bySession.get(e.sessionId);
      if (list) list.push(e);
      else bySession.set(e.sessionId, [e]);
    }
    for (const [id, evs] of bySession) {
      const s = byId.get(id);
      if (s) this.announce(evs, s);
    }
  }

  /** Reads one session the actor may see; anything else is `not_found`, never a hint that it exists. */
  async get(actor: Actor, id: string): Promise<SessionEntity> {
    const found = await this.find(actor, id);
    if (!found) throw notFound();
    return found;
  }

  /** One session the actor may see (SessionReader.visibleTo), or null. */
  async find(actor: Actor, id: string): Promise<SessionEntity | null> {
    const s = await this.reader.visibleTo(actor, id);
    return this.policies.guardRead(actor, s);
  }

  /** One session of the tenant, of either mode, for its own staff in the console (src/console), under the same read guard; or null. */
  async findOfTenant(member: MemberDecider, id: string): Promise<SessionEntity | null> {
    if (!SESSION_ID_PATTERN.test(id)) return null;
    const s = await this.reader.ofTenant(member.tenantId, id);
    return this.policies.guardRead(member, s);
  }

  async list(scope: TenantScope, q: ListSessionsQuery): Promise<SessionPage> {
    if (!Number.isInteger(q.first) || q.first < 1 || q.first > 100) throw new DomainError('invalid_request', 'first must be between 1 and 100');
    const qb = this.db
      .getRepository(SessionEntity)
      .createQueryBuilder('s')
      .where('s.tenant_id = :tenantId AND s.livemode = :livemode', scope)
      .andWhere(this.policies.listCondition)
      .orderBy('s.created_at', 'DESC')
      .addOrderBy('s.id', 'DESC')
      .take(q.first + 1);
    if (q.status) qb.andWhere('s.status = :status', { status: q.status });
    if (q.referenceId) qb.andWhere('s.reference_id = :referenceId', { referenceId: q.referenceId });
    if (q.after) {
      const { createdAt, id } = decodeCursor(q.after);
      qb.andWhere('(s.created_at, s.id) < (:createdAt, :id)', { createdAt, id });
    }
    const rows = await qb.getMany();
    return { sessions: rows.slice(0, q.first), hasNextPage: rows.length > q.first };
  }

  /** The manual-review override (needs `sessions:review`, checked by the caller's auth). */
  async review(
    actor: TenantKeyActor,
    id: string,
    input: { decision: 'approve' | 'reject'; reason: string; reviewerId?: string | null },
  ): Promise<SessionEntity> {
    if (input.decision !== 'approve' && input.decision !== 'reject') throw new DomainError('invalid_request', 'decision must be approve or reject');
    return (await this.decide(actor, id, { ...input, decision: input.decision === 'approve' ? 'approve' : 'decline' })).session;
  }

  /**
   * A human decision (docs/decisions.md D16, needs `sessions:review`): `approve` / `decline` a session in
   * manual_review (the override's use case), or `reverse` a decided one within 90 days of its
   * completion (fraud found later, an upheld review). Under the session's row lock, so of two
   * reviewers deciding at once one wins and the other gets `invalid_state`; a `reverse` naming the
   * decision it reverses (`reverses`) is refused when another decision came in between.
   */
  async decide(
    actor: Decider,
    id: string,
    input: { decision: 'approve' | 'decline' | 'reverse'; reason: string; reviewerId?: string | null; reverses?: string | null },
  ): Promise<DecideOutcome> {
    const { reason } = checkedHumanDecision(input);
    // Visibility first: another tenant's session is a 404, not a 409.
    if (!(actor.kind === 'tenant_key' ? await this.find(actor, id) : await this.findOfTenant(actor, id))) throw notFound();
    // A console member is the reviewer: the id is the member's, never one the page was given.
    const reviewerId = actor.kind === 'console_member' ? actor.memberId : (input.reviewerId ?? null);
    const by: Record<string, string> = actor.kind === 'console_member' ? { member_id: actor.memberId } : { key_id: actor.keyId };
    const rule = this.policies.declines;
    let decision: SessionDecision | null = null;
    const outcome = await this.db.transaction(async (m: EntityManager) => {
      const s = await m.getRepository(SessionEntity).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!s) throw notFound();
      const from = s.status as SessionStatus;
      const now = this.now();
      if (input.decision === 'reverse') {
        if ((from !== 'success' && from !== 'failed') || !s.result) throw new DomainError('invalid_state', `Only a session in success or failed can be reversed; this one is ${s.status}`);
        if (!s.completedAt || now.getTime() - s.completedAt.getTime() > REVERSAL_WINDOW_MS) throw new DomainError('invalid_state', 'A decision can be reversed within 90 days of the session\'s completion; this one is older');
      } else if (from !== 'manual_review') throw new DomainError('invalid_state', `Only a session in manual_review can be approved or declined; this one is ${s.status}`);
      // Every decision that ends in a decline passes the tenant's second-reviewer rule, here, whoever decides.
      const declines = input.decision === 'decline' || (input.decision === 'reverse' && from === 'success');
      if (declines && rule && (await rule.decline(m, s, actor, reason, input.decision === 'reverse' ? 'reverse' : 'decline')) === 'held') return { s, events: [] };
      if (input.decision === 'reverse') {
        const latest = await latestDecision(m, s.id);
        if (input.reverses && latest?.id !== input.reverses) throw new DomainError('invalid_state', `Decision ${input.reverses} is not this session's latest decision; read the history again`);
        const events = this.flip(s, from === 'failed', { decision: from === 'failed' ? 'approve' : 'reject', reason, reviewer_id: reviewerId }, now);
        await this.commitTransitions(m, [s], events);
        decision = await recordDecision(m, s, { source: 'human', decision: 'reverse', reason, reviewer_id: reviewerId, requested_by: 'tenant', from_status: from, to_status: s.status as SessionStatus }, now);
        await this.auditDecision('session.reversed', s, { ...input, reviewerId }, by, m);
        await rule?.settled(m, s, actor, declines);
        return { s, events };
      }
      const approve = input.decision === 'approve';
      const events = this.applyTransition(
        s,
        approve ? 'success' : 'failed',
        (row) => {
          // A reviewer's approval vouches for the requested tier, so it carries that tier's badges.
          const approved = approve ? { achieved_tier: row.tier as Tier, badges: badgesForPassedChecks(new Set(checksForTier(row.tier as Tier))) } : {};
          const review = { decision: approve ? ('approve' as const) : ('reject' as const), reason, reviewer_id: reviewerId, reviewed_at: now.toISOString() };
          return { result: { ...row.result!, ...approved, decision: approve ? 'approved' : 'declined', review } };
        },
        false,
        now,
      )!;
      await this.commitTransitions(m, [s], events);
      decision = await recordDecision(m, s, { source: 'human', decision: input.decision, reason, reviewer_id: reviewerId, requested_by: 'tenant', from_status: from, to_status: s.status as SessionStatus }, now);
      await this.auditDecision('session.reviewed', s, { ...input, reviewerId, decision: approve ? 'approve' : 'reject' }, by, m);
      await rule?.settled(m, s, actor, declines);
      return { s, events };
    });
    if (outcome.events.length) this.announce(outcome.events, outcome.s);
    return { session: outcome.s, decision };
  }

  /**
   * A human re-decision of a decided session, on the end user's request for review
   * (docs/data-rights.md, "Review"): the one way out of a final status. The session takes `success`
   * (approve: the requested tier and its badges, as a manual approval gives) or `failed` (reject),
   * and its verification event is sent again, as on any decision.
   */
  async redecide(id: string, input: { decision: 'approve' | 'reject'; reason: string; reviewerId?: string | null }): Promise<SessionEntity> {
    const { s, events } = await this.db.transaction(async (m: EntityManager) => {
      const s = await m.getRepository(SessionEntity).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!s) throw notFound();
      if (!['success', 'failed', 'manual_review'].includes(s.status) || !s.result) throw new DomainError('invalid_state', `Only a decided session can be decided again; this one is ${s.status}`);
      const from = s.status as SessionStatus;
      const now = this.now();
      const approve = input.decision === 'approve';
      const events = this.flip(s, approve, { decision: input.decision, reason: input.reason, reviewer_id: input.reviewerId ?? null }, now);
      await this.commitTransitions(m, [s], events);
      await recordDecision(m, s, { source: 'human', decision: approve ? 'approve' : 'decline', reason: input.reason, reviewer_id: input.reviewerId ?? null, requested_by: 'end_user', from_status: from, to_status: s.status as SessionStatus }, now);
      await this.auditDecision('session.redecided', s, input, { requested_by: 'end_user' }, m);
      await this.policies.declines?.settled(m, s, null, false); // the session was decided again: a pending decline of it is void
      return { s, events };
    });
    this.announce(events, s);
    return s;
  }

  /**
   * Moves a decided session (locked by the caller) to `success` (the requested tier and its badges)
   * or `failed` (no badges), outside the state machine: the verification event is written again, so
   * the tenant's webhook and the user's verified claim follow (updateServiceVerification).
   */
  private flip(s: SessionEntity, approve: boolean, review: { decision: 'approve' | 'reject'; reason: string; reviewer_id: string | null }, now: Date): OutboxEventEntity[] {
    const from = s.status as SessionStatus;
    const reviewed = { ...review, reviewed_at: now.toISOString() };
    const result: SessionResult = approve
      ? { ...s.result!, decision: 'approved', achieved_tier: s.tier as Tier, badges: badgesForPassedChecks(new Set(checksForTier(s.tier as Tier))), review: reviewed }
      : { ...s.result!, decision: 'declined', badges: [], review: reviewed };
    Object.assign(s, { result, status: approve ? 'success' : 'failed', updatedAt: now, completedAt: now });
    return outboxEventsForTransition(s, from, now);
  }

  async cancel(actor: TenantKeyActor, id: string): Promise<SessionEntity> {
    return this.transition(actor, id, 'withdrawn', () => ({}));
  }

  /** The hosted page was opened: a live session starts. Test-mode sessions follow their own clock. */
  async markOpened(id: string): Promise<SessionEntity | null> {
    const s = await this.db.getRepository(SessionEntity).findOneBy({ id });
    if (!s || !s.livemode || s.status !== 'created') return s;
    return this.transitionUnchecked(id, 'in_progress', () => ({}), true);
  }

  /** Moves a session on its own (jobs); a step that no longer applies is skipped, so retries are harmless. */
  async advance(
    id: string,
    to: SessionStatus | ((s: SessionEntity, m: EntityManager) => readonly SessionStatus[] | Promise<readonly SessionStatus[]>),
    changes: (s: SessionEntity) => Partial<SessionEntity> = () => ({}),
    hooks: TransitionHooks = {},
  ): Promise<SessionEntity | null> {
    return this.transitionUnchecked(id, to, changes, true, hooks);
  }

  /**
   * T5 chip data arrived from the end user's device: the chip result `result(s)` builds is stored
   * and a `created` session starts (`in_progress`); when `completes` answers true under the row lock
   * (the other half of the T5 decision is there), it goes on to `processing` and `onComplete` queues
   * its checks, all in one transaction, so the evidence, the status and the job never commit apart.
   * A session past in_progress, or one that already holds a chip, is refused with `invalid_state`.
   */
  async attachChipResult(
    id: string,
    result: (s: SessionEntity) => SessionResult,
    completes: (m: EntityManager, s: SessionEntity) => Promise<boolean>,
    onComplete: (m: EntityManager, s: SessionEntity) => Promise<void>,
  ): Promise<SessionEntity> {
    let complete = false;
    const path = async (s: SessionEntity, m: EntityManager): Promise<SessionStatus[]> => {
      complete = await completes(m, s);
      return [...(s.status === 'created' ? (['in_progress'] as const) : []), ...(complete ? (['processing'] as const) : [])];
    };
    const refuse = async (_m: EntityManager, s: SessionEntity): Promise<boolean> => {
      if (!['created', 'in_progress'].includes(s.status)) throw new DomainError('invalid_state', `Chip data is accepted while a session is created or in_progress; this one is ${s.status}`);
      if (s.result?.chip) throw new DomainError('invalid_state', 'Chip data was already submitted for this session');
      return false;
    };
    return (await this.transitionUnchecked(id, path, (s) => ({ result: result(s) }), false, { unless: refuse, within: async (m, s) => (complete ? onComplete(m, s) : undefined) }))!;
  }

  /** Sessions whose 24 h ran out before processing (docs/api-behaviour.md, "Session lifecycle"). Returns how many expired. */
  async expireDue(limit = 500): Promise<number> {
    const due = await this.db
      .getRepository(SessionEntity)
      .createQueryBuilder('s')
      .select('s.id', 'id')
      .where(`s.status IN ('created', 'in_progress') AND s.expires_at <= :now`, { now: this.now() })
      .limit(limit)
      .getRawMany<{ id: string }>();
    return (await this.advanceMany(due.map((d) => d.id), 'expired')).length;
  }

  private async transition(
    actor: TenantKeyActor,
    id: string,
    to: SessionStatus,
    changes: (s: SessionEntity) => Partial<SessionEntity>,
    hooks: TransitionHooks = {},
  ): Promise<SessionEntity> {
    await this.get(actor, id); // visibility first: another tenant's session is a 404, not a 409
    return (await this.transitionUnchecked(id, to, changes, false, hooks))!;
  }

  private async auditDecision(action: 'session.reviewed' | 'session.redecided' | 'session.reversed', s: SessionEntity, input: { decision: string; reason: string; reviewerId?: string | null }, by: Record<string, string>, m: EntityManager): Promise<void> {
    // Reason and reviewer id are the tenant's free text (an id may be an email): only their hashes are kept, so the chain never holds personal data.
    const detail = { decision: input.decision, reason_sha256: sha256Hex(input.reason), reviewer_id_sha256: input.reviewerId ? sha256Hex(input.reviewerId) : null, ...by };
    await this.effects.audit({ tenantId: s.tenantId, livemode: s.livemode, action, subjectId: s.id, detail }, m);
  }

  /**
   * The only writer of `status`. Locks the row, checks the state machine, and commits the change
   * with its outbox rows in one transaction; listeners hear of it only after the commit.
   */
  private async transitionUnchecked(
    id: string,
    to: SessionStatus | ((s: SessionEntity, m: EntityManager) => readonly SessionStatus[] | Promise<readonly SessionStatus[]>),
    changes: (s: SessionEntity) => Partial<SessionEntity>,
    skipIfIllegal: boolean,
    hooks: TransitionHooks = {},
  ): Promise<SessionEntity | null> {
    const outcome = await this.db.transaction(async (m: EntityManager) => {
      const s = await m.getRepository(SessionEntity).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!s) throw notFound();
      if (hooks.unless && (await hooks.unless(m, s))) return null;
      // A path may read other rows under this lock (the T5 decision rule reads the page's captures).
      const path = typeof to === 'string' ? to : await to(s, m);
      const events = this.applyTransition(s, typeof path === 'string' ? path : () => path, changes, skipIfIllegal, this.now());
      if (!events) return null;
      await this.commitTransitions(m, [s], events);
      if (hooks.within) await hooks.within(m, s);
      return { s, events };
    });
    if (!outcome) return null;
    this.announce(outcome.events, outcome.s);
    return outcome.s;
  }

  /**
   * `advance` for many sessions in one transaction: each session is checked and announced on its
   * own exactly as by `advance` (a step that no longer applies, or an unknown id, is skipped), but
   * the rows are locked together (in id order, so two such calls cannot deadlock) and their outbox
   * rows and outbox work (webhook deliveries and jobs) are written with one INSERT each.
   * Returns the sessions that moved.
   */
  async advanceMany(ids: readonly string[], to: SessionStatus, changes: (s: SessionEntity) => Partial<SessionEntity> = () => ({})): Promise<SessionEntity[]> {
    if (ids.length === 0) return [];
    const moved = await this.db.transaction(async (m: EntityManager) => {
      const sessions = await m
        .getRepository(SessionEntity)
        .createQueryBuilder('s')
        .where('s.id IN (:...ids)', { ids: [...new Set(ids)] })
        .orderBy('s.id', 'ASC')
        .setLock('pessimistic_write')
        .getMany();
      const now = this.now();
      const done: { s: SessionEntity; events: OutboxEventEntity[] }[] = [];
      for (const s of sessions) {
        const events = this.applyTransition(s, to, changes, true, now);
        if (events) done.push({ s, events });
      }
      if (done.length) await this.commitTransitions(m, done.map((d) => d.s), done.flatMap((d) => d.events));
      return done;
    });
    for (const { s, events } of moved) this.announce(events, s);
    return moved.map((d) => d.s);
  }

  /** Checks and applies the steps to a locked session in memory; its outbox rows, or null when the step is skipped. */
  private applyTransition(
    s: SessionEntity,
    to: SessionStatus | ((s: SessionEntity) => readonly SessionStatus[]),
    changes: (s: SessionEntity) => Partial<SessionEntity>,
    skipIfIllegal: boolean,
    now: Date,
  ): OutboxEventEntity[] | null {
    const from = s.status as SessionStatus;
    // A path walks several steps in this one transaction, each checked and announced on its own.
    const steps = typeof to === 'string' ? [to] : to(s);
    try {
      let at = from;
      for (const step of steps) {
        assertTransition(at, step);
        at = step;
      }
    } catch (err) {
      if (skipIfIllegal) return null;
      throw err;
    }
    Object.assign(s, changes(s));
    const events: OutboxEventEntity[] = [];
    let previous = from;
    for (const step of steps) {
      Object.assign(s, { status: step, updatedAt: now });
      if (COMPLETING_STATUSES.includes(step)) s.completedAt = now;
      events.push(...outboxEventsForTransition(s, previous, now));
      previous = step;
    }
    return events;
  }

  /** Writes the changed sessions, their outbox rows and the outbox handlers' work, in the caller's transaction. */
  private async commitTransitions(m: EntityManager, sessions: SessionEntity[], events: OutboxEventEntity[]): Promise<void> {
    await m.getRepository(SessionEntity).save(sessions);
    if (events.length) await insertOutboxEvents(m, events);
    await this.handleOutbox(m, events);
  }

  private announce(events: OutboxEventEntity[], session: SessionEntity): void {
    this.effects.committed(events, session);
  }

}

/** The test-mode clock's jobs of these sessions (D4): a live session has none. */
function testModeJobs(sessions: SessionEntity[]): { data: { sessionId: string; step: TestModeStep }; startAfter: Date; singletonKey: string }[] {
  return sessions
    .filter((s) => !s.livemode)
    .flatMap((s) => TEST_MODE_STEPS.map(({ step, afterMs }) => ({ data: { sessionId: s.id, step }, startAfter: new Date(s.createdAt.getTime() + afterMs), singletonKey: `${s.id}:${step}` })));
}

export function encodeCursor(s: Pick<SessionEntity, 'createdAt' | 'id'>): string {
  return Buffer.from(JSON.stringify([s.createdAt.toISOString(), s.id])).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  try {
    const [iso, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, string];
    const createdAt = new Date(iso);
    if (typeof id !== 'string' || Number.isNaN(createdAt.getTime())) throw new Error('bad cursor');
    return { createdAt, id };
  } catch {
    throw new DomainError('invalid_request', 'after is not a cursor this API returned');
  }
}

/** What `SessionService.createMany` hands its caller inside the transaction. */
export type BulkCreateTransaction<K> = {
  m: EntityManager;
  /** The commands the create's rules accepted, each built into its row (not written yet). */
  built: { key: K; session: SessionEntity }[];
  /** The commands they refused, with why. */
  refused: { key: K; error: DomainError }[];
  /** The actor's sessions (its tenant and mode) that already carry these reference_ids: reference -> the oldest session's id. */
  existingReferences(refs: string[]): Promise<Map<string, string>>;
  /** Writes these sessions (of `built`) in this transaction. */
  write(sessions: SessionEntity[]): Promise<void>;
};

async function existingReferences(m: EntityManager, actor: TenantKeyActor, refs: string[]): Promise<Map<string, string>> {
  if (refs.length === 0) return new Map();
  const rows: { reference_id: string; id: string }[] = await m.query(
    `SELECT DISTINCT ON (reference_id) reference_id, id FROM sessions WHERE tenant_id = $1 AND livemode = $2 AND reference_id = ANY($3::text[]) ORDER BY reference_id, created_at, id`,
    [actor.tenantId, actor.livemode, [...new Set(refs)]],
  );
  return new Map(rows.map((r) => [r.reference_id, r.id]));
}
