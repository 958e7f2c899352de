import { DataSource } from 'typeorm';
import { NO_METRICS, type Metrics } from '../metrics/metrics';
import { FlowEntity, SessionEntity } from '../../entities';
import type { LivenessChallenge } from '../checks/check-providers';
import { DomainError, FieldsError } from '../errors';
import type { HostedPageActor } from '../auth/actor';
import { newClientSecret } from '../auth/secrets';
import { randomBase62, sha256Hex } from '../ids';
import { BusinessDetails, validateBusinessDetails } from './business-identifiers';
import { identitySealContext, validateIdentity } from './identity-confirmation';
import type { SignedLinks } from '../links/signed-links';
import { hostedLinkEnded } from './hosted-link-ended';
import { SESSION_ID_PATTERN } from '../ids';
import type { JobQueue } from '../jobs/job-queue';
import { kindOfDeclared, normalize } from '../vault/content-type';
import { refusingAudio, type VideoType } from '../vault/silent-video';
import { MAX_BYTES, UPLOADABLE } from '../vault/upload-limits';
import type { SessionService } from '../sessions/session.service';
import type { SessionResult } from '../../entities/session-result.document';
import type { SessionStatus } from '../sessions/session-status';
import { RUN_CHECKS_JOB } from '../sessions/session-queues';
import type { Tier } from '../sessions/tiers';
import { isArtifactClass } from '../vault/artifact-classes';
import { isFromChip, type ArtifactRecord } from '../vault/artifact-store';
import type { EvidenceVault } from '../vault/evidence-vault';
import { originsFor } from '../flows/flow.service';
import { FlowStep, needsLiveness, stepsForTier } from './flow-steps';
import { HostedCaptureRepository } from './hosted-capture.repository';
import { queueChecks, T5DecisionGate } from './t5-decision';
import { frameProblem, issueChallenge } from './liveness-challenge';
import type { PageCredentials } from './page-credentials';
import { DigitalIdRequestRepository, type DigitalIdRequestRow } from '../digital-id/digital-id-request.repository';
import { TEST_OUTCOMES, testOutcomeOf, type TestOutcome } from '../sessions/test-mode-outcome';
import { systemClock, type Clock } from '../clock';


/** Statuses in which the page may still capture. */
const CAPTURING: readonly SessionStatus[] = ['in_progress'];
/** Statuses in which a test session's outcome may still be chosen: until its clock decides it (D22). */
const TEST_UNDECIDED: readonly SessionStatus[] = ['created', 'in_progress', 'processing'];
const DOCUMENT_SIDES = ['data_page', 'front', 'back'] as const;

export type PageView = {
  session_id: string;
  status: string;
  tier: string;
  livemode: boolean;
  locale: string;
  steps: readonly FlowStep[];
  branding: { display_name: string; logo_url: string | null; primary_color: string };
  /** Where the page sends the user at the end in redirect mode (the session's `redirect_url`), and who may hear its messages. */
  redirect_url: string | null;
  allowed_origins: string[];
  captured: { id_document_image: number; selfie_image: number; selfie_video: number };
  challenge: PublicChallenge | null;
  submitted: boolean;
  /** The server's clock (epoch ms), so the page can time the challenge windows whatever its own clock says. */
  server_time: number;
  /** D24: whether the page offers "Use a digital ID", and how the latest request fared (null: none sent). */
  digital_id: { offered: boolean; latest: { request_id: string; status: string; reason: string | null } | null };
  /** A test session's outcome as it stands (`metadata.test_outcome`, D22); null for a live session. */
  test_outcome: TestOutcome | null;
};

export type PublicChallenge = { id: string; issued_at: number; steps: { action: string; nonce: string; opens_at: number; closes_at: number }[] };

export type UploadRequest = {
  class: string | undefined;
  contentType: string | undefined;
  contentLength: number | undefined;
  body: AsyncIterable<Buffer | string>;
  side?: string;
  step?: string;
  nonce?: string;
  capturedAt?: string;
};


/**
 * The hosted flow behind the page: who the page is (its credential), starting, capturing into the
 * vault, the liveness challenge, submitting to the checks, cancelling. The HTTP router only maps
 * requests onto these calls.
 */
export class HostedFlowService {
  private readonly captures: HostedCaptureRepository;
  private readonly gate: T5DecisionGate;
  private readonly digitalIdRequests: DigitalIdRequestRepository;
  private readonly now: Clock;
  private readonly metrics: Pick<Metrics, 'uploadFinished'>;

  constructor(
    private readonly db: DataSource,
    private readonly sessions: SessionService,
    private readonly links: SignedLinks,
    private readonly credentials: PageCredentials,
    private readonly vault: EvidenceVault,
    private readonly jobs: Pick<JobQueue, 'send' | 'wakeLocalWorkers'>,
    opts: { now?: Clock; metrics?: Pick<Metrics, 'uploadFinished'> } = {},
  ) {
    this.now = opts.now ?? systemClock;
    this.metrics = opts.metrics ?? NO_METRICS;
    this.captures = new HostedCaptureRepository(db);
    this.gate = new T5DecisionGate(this.captures);
    this.digitalIdRequests = new DigitalIdRequestRepository(db);
  }

  /** The hosted URL's token opens a page credential; a wrong token is a 404 like an unknown session. */
  async openPage(sessionId: unknown, token: unknown): Promise<{ credential: string; expires_at: string; session: PageView }> {
    if (typeof sessionId !== 'string' || typeof token !== 'string' || !SESSION_ID_PATTERN.test(sessionId) || !this.links.verify(sessionId, token)) {
      throw new DomainError('not_found', 'This verification link is not valid');
    }
    const s = await this.db.getRepository(SessionEntity).findOneBy({ id: sessionId });
    if (!s || hostedLinkEnded(s, this.now())) throw new DomainError('not_found', 'This verification link is not valid');
    const { credential, expiresAt } = this.credentials.mint(sessionId);
    return { credential, expires_at: expiresAt.toISOString(), session: await this.view(sessionId) };
  }

  /**
   * The session a page credential names (its row), or `unauthorized`. A valid credential of
   * another session is a 404 for this one, as another tenant's session is to an API key.
   */
  async authenticate(authorization: string | undefined, sessionId: string): Promise<SessionEntity> {
    const id = this.credentials.verify(authorization);
    if (id !== sessionId) throw new DomainError('not_found', 'Session not found');
    return this.pageSession(id);
  }

  /**
   * The row each page actor was resolved from: the route's `sessionOfPage` takes it instead of
   * reading it again, so a /v1/hosted request reads its session once, as before the page became an
   * actor. Kept beside the actor rather than in it, so the row never travels in a request's context.
   */
  private readonly rowOfActor = new WeakMap<HostedPageActor, SessionEntity>();

  /** The actor of a page credential, for the one authentication middleware (src/context.ts). */
  async pageActor(authorization: string | undefined): Promise<HostedPageActor> {
    const s = await this.pageSession(this.credentials.verify(authorization));
    const actor: HostedPageActor = { kind: 'hosted_page', session: { id: s.id, tenantId: s.tenantId, livemode: s.livemode } };
    this.rowOfActor.set(actor, s);
    return actor;
  }

  /** The session a page actor acts on at `sessionId`; another session's is a 404, as in `authenticate`. */
  async sessionOfPage(actor: HostedPageActor, sessionId: string): Promise<SessionEntity> {
    if (actor.session.id !== sessionId) throw new DomainError('not_found', 'Session not found');
    return this.rowOfActor.get(actor) ?? this.pageSession(sessionId);
  }

  private async pageSession(id: string): Promise<SessionEntity> {
    // Every /v1/hosted request reads its session here (an upload, each liveness frame): through the sessions'
    // prepared, coalesced read, not a TypeORM query built per request (docs/benchmarks.md, "Hosted flow").
    const s = await this.sessions.reader.byId(id);
    if (!s) throw new DomainError('unauthorized', 'Missing or invalid page credential');
    // The page's credential ends with its link: an hour after the session's terminal state.
    if (hostedLinkEnded(s, this.now())) throw new DomainError('unauthorized', 'This verification has ended');
    return s;
  }

  async view(sessionId: string): Promise<PageView> {
    const s = await this.db.getRepository(SessionEntity).findOneByOrFail({ id: sessionId });
    const flow = await this.db.getRepository(FlowEntity).findOneByOrFail({ id: s.flowId });
    const capture = await this.captures.find(sessionId);
    const counts = { id_document_image: 0, selfie_image: 0, selfie_video: 0 };
    for (const a of await this.vault.list(sessionId)) if (a.class in counts && !isFromChip(a) && a.details.source !== 'digital_id') counts[a.class as keyof typeof counts]++;
    const latestDigitalId = await this.digitalIdRequests.latest(sessionId);
    return {
      session_id: s.id,
      status: s.status,
      tier: s.tier,
      livemode: s.livemode,
      locale: s.locale,
      steps: stepsForTier(s.tier as Tier),
      branding: { display_name: flow.displayName, logo_url: flow.logoUrl, primary_color: flow.primaryColor },
      redirect_url: s.redirectUrl,
      allowed_origins: originsFor(flow, s.livemode, s.redirectUrl),
      captured: counts,
      challenge: capture?.challenge ? publicChallenge(capture.challenge) : null,
      submitted: Boolean(capture?.submittedAt),
      server_time: this.now().getTime(),
      digital_id: {
        offered: flow.digitalIdEnabled && stepsForTier(s.tier as Tier).includes('document'),
        latest: latestDigitalId ? { request_id: latestDigitalId.id, status: latestDigitalId.status, reason: digitalIdReason(latestDigitalId) } : null,
      },
      test_outcome: s.livemode ? null : testOutcomeOf(s.metadata),
    };
  }

  /** The page starts capturing: a `created` session becomes `in_progress`. A test session still follows its own clock (D22). */
  async start(s: SessionEntity): Promise<PageView> {
    const at = this.now();
    const moved = await this.sessions.advance(s.id, (cur) => (cur.status === 'created' ? ['in_progress'] : []), () => ({}), {
      unless: async (_m, cur) => !['created', 'in_progress'].includes(cur.status),
      within: async (m) => this.captures.start(m, s.id, at),
    });
    if (!moved) {
      const current = await this.db.getRepository(SessionEntity).findOneByOrFail({ id: s.id });
      if (!['created', 'in_progress'].includes(current.status)) throw closed(current.status);
    }
    return this.view(s.id);
  }

  /** A randomised challenge for the liveness step, replacing any earlier one. */
  async challenge(s: SessionEntity): Promise<PublicChallenge> {
    if (!needsLiveness(s.tier as Tier)) throw new DomainError('invalid_request', `A ${s.tier} session has no liveness step`);
    this.assertCapturing(s);
    await this.assertNotSubmitted(s);
    const challenge = issueChallenge(this.now().getTime());
    await this.captures.setChallenge(s.id, challenge);
    return publicChallenge(challenge);
  }

  async upload(s: SessionEntity, req: UploadRequest): Promise<ArtifactRecord> {
    if (!isArtifactClass(req.class) || !UPLOADABLE[req.class]) {
      throw new DomainError('invalid_request', `class must be one of ${Object.keys(UPLOADABLE).join(', ')}`);
    }
    const limits = UPLOADABLE[req.class]!;
    const kind = kindOfDeclared(req.contentType);
    if (!kind || !limits.kinds.includes(kind)) throw new DomainError('unsupported_media_type', `A ${req.class} must be sent as one of the accepted ${limits.kinds.join(' or ')} types`);
    const maxBytes = MAX_BYTES[kind];
    if (req.contentLength !== undefined && req.contentLength > maxBytes) throw new DomainError('payload_too_large', `A ${kind} upload is at most ${maxBytes} bytes`);
    // A submit is refused by the store's guard, under the session row's lock, not by a read before the body.
    this.assertCapturing(s);
    const { details, detailsWhenRead } = await this.detailsFor(s, req);
    const input: Parameters<EvidenceVault['put']>[0] = {
      session: { id: s.id, tenantId: s.tenantId, livemode: s.livemode },
      class: req.class,
      declaredType: req.contentType!,
      // A video is refused before it is stored if it has a sound track.
      body: kind === 'video' ? refusingAudio(req.body, normalize(req.contentType) as VideoType) : req.body,
      maxBytes,
      expectedBytes: req.contentLength,
      details,
      detailsWhenRead,
      openStatuses: CAPTURING,
      maxPerClass: limits.maxPerSession,
    };
    return this.measuredUpload(() => this.vault.put(input));
  }

  /** Times the body's way into the vault (docs/operations.md, "Metrics"); a refused body counts as `refused`. */
  private async measuredUpload(store: () => Promise<ArtifactRecord>): Promise<ArtifactRecord> {
    const started = performance.now();
    try {
      const stored = await store();
      this.metrics.uploadFinished('stored', stored.sizeBytes, (performance.now() - started) / 1000);
      return stored;
    } catch (err) {
      this.metrics.uploadFinished('refused', 0, (performance.now() - started) / 1000);
      throw err;
    }
  }

  /**
   * Everything captured: the session goes to `processing` and the checks are queued with it. A T5
   * session goes there only once its chip is stored too (T5DecisionGate); until then it stays
   * `in_progress` with its captures submitted, and the chip's arrival queues the checks. A second
   * submit changes nothing.
   */
  /**
   * Submits the captures. The browser whose submit wins gets the keep secret (`keep_secret`, in this
   * answer only): "Keep this verification in your account" needs it (KeepVerificationService), so
   * whoever else holds the hosted URL cannot bind the verification to themselves.
   */
  async submit(s: SessionEntity): Promise<PageView & { keep_secret?: string }> {
    const capture = await this.captures.find(s.id);
    if (capture?.submittedAt) return this.view(s.id);
    this.assertCapturing(s);
    await this.assertComplete(s, capture?.challenge ?? null, ['mobile_handoff']);
    const keepSecret = await this.markCapturesSubmitted(s);
    return keepSecret ? { ...(await this.view(s.id)), keep_secret: keepSecret } : this.view(s.id);
  }

  /** The keep secret handed to the browser that submitted, not yet spent (src/hosted-flow/keep-verification.service.ts). */
  keepSecretMatches(sessionId: string, keepSecret: string): Promise<boolean> {
    return this.captures.keepSecretMatches(sessionId, sha256Hex(keepSecret));
  }

  /** Spends the session's keep secret, once, if the session ended after `completedAfter`. */
  spendKeepSecret(sessionId: string, completedAfter: Date): Promise<boolean> {
    return this.captures.spendKeepSecret(sessionId, this.now(), completedAfter);
  }

  /**
   * Marks the captures submitted and mints the keep secret (only its hash is kept). Returns the secret when
   * this call submitted, null when a concurrent submit won.
   */
  private async markCapturesSubmitted(s: SessionEntity): Promise<string | null> {
    const keepSecret = `hks_${randomBase62(32)}`;
    const at = this.now();
    let complete = false;
    let minted = false;
    const moved = await this.sessions.advance(
      s.id,
      (cur) => {
        complete = this.gate.completedByCaptures(cur);
        return complete ? ['processing'] : [];
      },
      () => ({}),
      {
        unless: async (m, cur) => cur.status !== 'in_progress' || Boolean((await this.captures.find(s.id, m))?.submittedAt),
        within: async (m) => {
          await this.captures.start(m, s.id, at);
          minted = await this.captures.markSubmitted(m, s.id, at, sha256Hex(keepSecret));
          if (complete) await queueChecks(this.jobs, m, s.id);
        },
      },
    );
    // The checks' job is committed: this process's check workers start it now rather than at the next probe.
    if (moved && complete) this.jobs.wakeLocalWorkers(RUN_CHECKS_JOB);
    if (!moved) {
      const again = await this.captures.find(s.id);
      if (again?.submittedAt) return null; // a concurrent submit won
      throw closed((await this.db.getRepository(SessionEntity).findOneByOrFail({ id: s.id })).status);
    }
    return minted ? keepSecret : null;
  }

  /** T4: the business identifiers, checked (check digits, shapes) and kept with the session for the registry checks. */
  async saveBusiness(s: SessionEntity, body: unknown): Promise<BusinessDetails> {
    this.assertStep(s, 'business');
    this.assertCapturing(s);
    const { details, errors } = validateBusinessDetails(body);
    if (errors.length) throw new FieldsError('Some business details are not valid', errors);
    await this.captures.setBusiness(s.id, details);
    return details;
  }

  /** T3/T4: the name and date of birth to screen, as the user confirmed them, sealed under the tenant's vault key. */
  async confirmIdentity(s: SessionEntity, body: unknown): Promise<{ confirmed: true }> {
    this.assertStep(s, 'confirm_identity');
    this.assertCapturing(s);
    const { identity, errors } = validateIdentity(body, this.now());
    if (!identity) throw new FieldsError('Some identity details are not valid', errors);
    await this.captures.setIdentitySealed(s.id, await this.vault.seal(s.tenantId, identitySealContext(s.id), identity));
    return { confirmed: true };
  }

  /**
   * T5: once the web steps are captured, a client_secret for the mobile app (same powers as the one
   * returned on create; only its hash is kept, so each call mints a new one and the previous app
   * link stops working) inside the app's deep link. The secret rides in the query of a custom
   * scheme, or in the fragment of an https universal link, which browsers never send to a server.
   */
  async appHandoff(s: SessionEntity, appLink: string): Promise<{ link: string; keep_secret?: string }> {
    this.assertStep(s, 'mobile_handoff');
    this.assertCapturing(s);
    const capture = await this.captures.find(s.id);
    await this.assertComplete(s, capture?.challenge ?? null, ['mobile_handoff']);
    // The web steps are done: they count as submitted, and decide the session now if the chip came first.
    // This browser captured: it gets the keep secret, as a submit would give it.
    const keepSecret = capture?.submittedAt ? null : await this.markCapturesSubmitted(s);
    const secret = newClientSecret(s.id);
    await this.db.getRepository(SessionEntity).update({ id: s.id }, { appClientSecretHash: sha256Hex(secret) });
    const params = new URLSearchParams({ session_id: s.id, client_secret: secret }).toString();
    const url = new URL(appLink);
    const link = url.protocol === 'https:' ? `${url.origin}${url.pathname}${url.search}#${params}` : `${appLink}${appLink.includes('?') ? '&' : '?'}${params}`;
    return keepSecret ? { link, keep_secret: keepSecret } : { link };
  }

  /**
   * The test page's choice (docs/decisions.md D22): a test session not yet decided takes `outcome` as its
   * `metadata.test_outcome` and resolves as that on its own 10-second clock, which nothing on the
   * page holds back. The browser that chose first gets the keep secret, as a submit would give it.
   */
  async chooseTestOutcome(s: SessionEntity, body: unknown): Promise<PageView & { keep_secret?: string }> {
    if (s.livemode) throw new DomainError('invalid_request', 'Only a test session takes a test outcome');
    const outcome = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).outcome : undefined;
    if (typeof outcome !== 'string' || !(TEST_OUTCOMES as readonly string[]).includes(outcome)) {
      const message = `outcome must be one of ${TEST_OUTCOMES.join(', ')}`;
      throw new FieldsError(message, [{ field: 'outcome', code: outcome === undefined ? 'required' : 'invalid_value', message }]);
    }
    const keepSecret = `hks_${randomBase62(32)}`;
    const at = this.now();
    let minted = false;
    const moved = await this.sessions.advance(s.id, (cur) => (cur.status === 'created' ? ['in_progress'] : []), (cur) => ({ metadata: { ...cur.metadata, test_outcome: outcome } }), {
      unless: async (_m, cur) => !TEST_UNDECIDED.includes(cur.status as SessionStatus),
      within: async (m) => {
        await this.captures.start(m, s.id, at);
        minted = await this.captures.markSubmitted(m, s.id, at, sha256Hex(keepSecret));
      },
    });
    if (!moved) {
      const current = await this.db.getRepository(SessionEntity).findOneByOrFail({ id: s.id });
      throw new DomainError('invalid_state', `This test session is already decided (it is ${current.status})`);
    }
    const view = await this.view(s.id);
    return minted ? { ...view, keep_secret: keepSecret } : view;
  }

  private assertStep(s: SessionEntity, step: FlowStep): void {
    if (!stepsForTier(s.tier as Tier).includes(step)) throw new DomainError('invalid_request', `A ${s.tier} session has no ${step} step`);
  }

  /** The end user stops: the session is withdrawn (nothing is decided from it). */
  async cancel(s: SessionEntity): Promise<PageView> {
    const moved = await this.sessions.advance(s.id, 'withdrawn', () => ({}), { unless: async (_m, cur) => !['created', 'in_progress'].includes(cur.status) });
    if (!moved) throw closed((await this.db.getRepository(SessionEntity).findOneByOrFail({ id: s.id })).status);
    return this.view(s.id);
  }

  /**
   * The end user declined consent: nothing is captured, and the session fails with the `consent`
   * check failed (a decision the user took, so it is final, not a withdrawal).
   */
  async declineConsent(s: SessionEntity): Promise<PageView> {
    const result: SessionResult = {
      decision: 'declined',
      achieved_tier: 'T0',
      confidence: 0,
      checks: [{ name: 'consent', status: 'fail', reason: 'The end user declined consent on the hosted page' }],
      evidence_urls: [],
      badges: [],
      signals: [],
    };
    const moved = await this.sessions.advance(
      s.id,
      (cur) => (cur.status === 'created' ? ['in_progress', 'processing', 'failed'] : ['processing', 'failed']),
      () => ({ result }),
      { unless: async (_m, cur) => !['created', 'in_progress'].includes(cur.status), within: async (m) => this.captures.start(m, s.id, this.now()) },
    );
    if (!moved) throw closed((await this.db.getRepository(SessionEntity).findOneByOrFail({ id: s.id })).status);
    return this.view(s.id);
  }

  private assertCapturing(s: SessionEntity): void {
    // The expiry job runs once a minute; a session past its expires_at takes nothing in between.
    if (s.expiresAt.getTime() <= this.now().getTime() && ['created', 'in_progress'].includes(s.status)) throw closed('expired');
    if (s.status === 'created') throw new DomainError('invalid_state', 'Start the session before capturing');
    if (!CAPTURING.includes(s.status as SessionStatus)) throw closed(s.status);
  }

  /** A T5 session waits in_progress for its chip after the captures were submitted: what was submitted is what the checks read. */
  private async assertNotSubmitted(s: SessionEntity): Promise<void> {
    if ((await this.captures.find(s.id))?.submittedAt) throw new DomainError('invalid_state', 'The captures were already submitted');
  }

  private async detailsFor(s: SessionEntity, req: UploadRequest): Promise<{ details: Record<string, unknown>; detailsWhenRead?: () => Record<string, unknown> }> {
    if (req.class === 'id_document_image') {
      const side = req.side ?? 'data_page';
      if (!(DOCUMENT_SIDES as readonly string[]).includes(side)) throw new DomainError('invalid_request', `side must be one of ${DOCUMENT_SIDES.join(', ')}`);
      return { details: { side } };
    }
    if (req.class === 'selfie_video') {
      const challenge = (await this.captures.find(s.id))?.challenge;
      if (!challenge) throw new DomainError('invalid_state', 'Ask for a liveness challenge before sending its frames');
      // `step` is a step's index written out: an empty or fractional one is not step 0.
      const stepIndex = /^\d{1,2}$/.test(String(req.step ?? '')) ? Number(req.step) : NaN;
      const frame = { stepIndex, nonce: req.nonce ?? '', capturedAt: Number(req.capturedAt) };
      if (!Number.isInteger(frame.stepIndex) || !Number.isFinite(frame.capturedAt)) throw new DomainError('invalid_request', 'A liveness frame needs step (a step index), nonce and captured_at (epoch ms)');
      const receivedAt = this.now().getTime();
      const problem = frameProblem(challenge, frame, receivedAt);
      if (problem) throw new DomainError('invalid_request', `This frame does not answer the challenge: ${problem}`);
      // The checks read the server's time, never the client's: a frame counts from when its whole body had
      // arrived, not from when its request began (a body streamed slowly may be made after its headers were
      // sent), and a frame that arrived in the grace period counts at its step's close. The page's own stamp
      // is kept beside it.
      const closesAt = challenge.steps[frame.stepIndex].closesAt;
      return {
        details: { challenge_id: challenge.id, step: frame.stepIndex, nonce: frame.nonce, client_captured_at: frame.capturedAt },
        detailsWhenRead: () => ({ captured_at: Math.min(this.now().getTime(), closesAt) }),
      };
    }
    return { details: {} };
  }

  private async assertComplete(s: SessionEntity, challenge: LivenessChallenge | null, skip: FlowStep[] = []): Promise<void> {
    const artifacts = (await this.vault.list(s.id)).filter((a) => !isFromChip(a));
    const missing: string[] = [];
    const tier = s.tier as Tier;
    const steps = stepsForTier(tier).filter((st) => !skip.includes(st));
    if (steps.includes('confirm_identity') || steps.includes('business')) {
      const details = await this.captures.tierDetails(s.id);
      if (steps.includes('confirm_identity') && !details.identitySealed) missing.push('the confirmed identity');
      if (steps.includes('business') && !details.business) missing.push('the business details');
    }
    // A digital ID answered (verified or refused) stands for the document step: its `digital_id` check decides (D24).
    if (stepsForTier(tier).includes('document') && !artifacts.some((a) => a.class === 'id_document_image') && !(await this.digitalIdRequests.latestAnswered(s.id))) {
      missing.push('a document image or a digital ID');
    }
    if (stepsForTier(tier).includes('selfie') && !artifacts.some((a) => a.class === 'selfie_image')) missing.push('a selfie');
    if (needsLiveness(tier)) {
      const frames = artifacts.filter((a) => a.class === 'selfie_video' && challenge && a.details.challenge_id === challenge.id);
      const stepsSeen = new Set(frames.map((f) => f.details.step));
      if (!challenge || challenge.steps.some((_st, i) => !stepsSeen.has(i))) missing.push('liveness frames for every challenge step');
    }
    if (missing.length) throw new DomainError('invalid_request', `Not everything was captured yet: ${missing.join(', ')}`);
  }
}

function digitalIdReason(row: DigitalIdRequestRow): string | null {
  return row.status === 'failed' || row.status === 'error' ? ((row.outcome as { reason?: string } | null)?.reason ?? null) : null;
}

function closed(status: string): DomainError {
  return new DomainError('invalid_state', `This session no longer takes captures (it is ${status})`);
}

function publicChallenge(c: LivenessChallenge): PublicChallenge {
  return { id: c.id, issued_at: c.issuedAt, steps: c.steps.map((st) => ({ action: st.action, nonce: st.nonce, opens_at: st.opensAt, closes_at: st.closesAt })) };
}
