import { DataSource } from 'typeorm';
import { SessionEntity } from '../../entities';
import { CHIP_CHECK_NAME } from '../chip/chip-check.factory';
import { chipCheckWithCrossChecks, compareChipMrz, compareChipPortrait, type CrossCheck } from '../chip/chip-cross-checks';
import { openChipEvidence } from '../chip/chip-evidence';
import { hasChip } from '../hosted-flow/t5-decision';
import { HostedCaptureRepository } from '../hosted-flow/hosted-capture.repository';
import type { RunChecksData } from '../sessions/session-queues';
import type { Logger } from '../logger';
import type { SanctionsScreeningService } from '../sanctions/screening.service';
import { SANCTIONS_CHECK, SANCTIONS_NOT_LOADED } from '../sessions/sanctions-check';
import { ConfirmedIdentity, differencesFromMrz, identitySealContext } from '../hosted-flow/identity-confirmation';
import type { Check, SessionResult } from '../../entities/session-result.document';
import type { SessionService } from '../sessions/session.service';
import { testModeResult, testOutcomeOf } from '../sessions/test-mode-outcome';
import { checksForSession, checksForTier, DIGITAL_ID_CHECK, Tier } from '../sessions/tiers';
import { DigitalIdRequestRepository, type DigitalIdRequestRow } from '../digital-id/digital-id-request.repository';
import { digitalIdCheck, documentReadingOf, type StoredPresentation } from '../digital-id/digital-id-check';
import { EVIDENCE_CLASSES } from '../vault/artifact-classes';
import { isFromChip, type ArtifactRecord } from '../vault/artifact-store';
import type { EvidenceVault } from '../vault/evidence-vault';
import { CheckOutcome, CheckProviders, DocumentReading, ImageInput, LivenessChallenge, LivenessFrame, ProviderResult, signalSource } from '../checks/check-providers';
import { CheckEnginesBusyError } from '../checks/check-worker.pool';
import { liveSanctionsCheck } from './identity-screening';
import { decide, LIVE_POLICY_VERSION, TEST_MODE_POLICY_VERSION } from './decision-policy';
import { REGISTRY_CHECK_NAMES } from '../registries/business-registry';
import { automatedDecision } from '../sessions/decision-history';
import { testModeCheckProviders } from './test-mode-providers';
import type { BusinessDetails } from '../hosted-flow/business-identifiers';
import { BusinessChecksService, type BusinessCheckRun } from '../registries/business-checks.service';
import type { BusinessSubmission } from '../registries/registry-comparison';
import { RegistryBusyError } from '../registries/registry-rate-limiter';
import { testModeBusinessRun } from './test-mode-business';

const CAPTURE_CHECKS = new Set(['document_ocr', DIGITAL_ID_CHECK, 'face_match', 'liveness', 'anti_spoof']);

/**
 * The check pipeline, run as a durable job after the page submits: reads the captures from the
 * vault, runs the tier's checks through the engines (test mode: the deterministic ones; live mode:
 * the configured ones), stores what the engines derived (templates, MRZ text, the decision) in the
 * vault and moves the session to its decision. A retry after a crash starts over; a session
 * already decided is left alone.
 */
export class RunChecksJob {
  private readonly captures: HostedCaptureRepository;
  private readonly digitalIds: DigitalIdRequestRepository;

  constructor(
    private readonly db: DataSource,
    private readonly sessions: SessionService,
    private readonly vault: EvidenceVault,
    private readonly liveProviders: CheckProviders,
    private readonly logger: Logger,
    private readonly sanctions: SanctionsScreeningService | undefined,
    /** The live T4 registry checks (src/registries): a registry without its credential answers `error` with that reason. */
    private readonly business: BusinessChecksService,
  ) {
    this.captures = new HostedCaptureRepository(db);
    this.digitalIds = new DigitalIdRequestRepository(db);
  }

  async run({ sessionId }: RunChecksData): Promise<void> {
    const s = await this.sessions.reader.byId(sessionId);
    if (!s || s.status !== 'processing') return;
    const started = performance.now();
    // When the session was submitted (its move to processing), so the log tells the queue's wait from the run.
    const waitedMs = s.updatedAt ? Math.max(0, Date.now() - new Date(s.updatedAt).getTime()) : undefined;
    const tier = s.tier as Tier;
    // T5 decides the captures and the chip together (T5DecisionGate); without the chip there is nothing to decide yet.
    if (tier === 'T5' && !hasChip(s)) return;
    const artifacts = (await this.vault.list(s.id)).filter((a) => !a.purgedAt);
    // One run's engines: the embedded ones analyse each image once across this run's checks.
    const providers = s.livemode ? (this.liveProviders.forOneRun?.() ?? this.liveProviders) : testModeCheckProviders(testOutcomeOf(s.metadata));
    // D24: a session whose document step was a digital ID runs `digital_id` in place of `document_ocr`.
    const digitalId = await this.digitalIds.latestAnswered(s.id);
    const checks = checksForSession(tier, digitalId !== null);
    // Everything one run finds stays in this call: the job instance is shared by concurrent runs (docs/checks.md).
    // The registry checks run beside the capture checks, all four whatever the others find (docs/checks.md).
    // T3/T4 read what the page collected (the confirmed identity, the business) once, for screening and the registries.
    const details = tier === 'T3' || tier === 'T4' ? await this.captures.tierDetails(s.id) : { business: null, identitySealed: null };
    const businessDetails = checksForTier(tier).some((c) => REGISTRY_CHECK_NAMES.includes(c)) ? details.business : null;
    const registryRun = businessDetails ? this.runRegistries(s, businessDetails) : null;
    // A spent registry budget ends this run and queues another (src/verification/busy-requeue.ts), which runs the
    // capture checks again: it is known within a call's time, so the capture checks stop at the next check
    // rather than run to the end for nothing. (Awaited below; a capture check that throws first must not leave it unhandled.)
    let registriesBusy: RegistryBusyError | null = null;
    registryRun?.catch((err) => void (registriesBusy = err instanceof RegistryBusyError ? err : null));
    const { outcomes: captureOutcomes, sanctionsHits, crossChecks } = await this.runCaptureChecks(s, checks, artifacts, providers, details.identitySealed, digitalId, () => registriesBusy);
    const registries = registryRun ? await registryRun : null;
    const outcomes = checks.map(
      (name) =>
        registries?.outcomes.find((o) => o.name === name) ??
        captureOutcomes.find((o) => o.name === name) ?? { name, verdict: 'error' as const, reason: 'No business details were given on the hosted page' },
    );
    for (const e of registries?.evidence ?? []) {
      await this.vault.putDerived({ session: { id: s.id, tenantId: s.tenantId, livemode: s.livemode }, class: 'registry_record', bytes: Buffer.from(JSON.stringify(e)), contentType: 'application/json' });
    }
    const decided = decide(tier, outcomes, { country: businessDetails?.country });
    const evidence = artifacts.filter((a) => EVIDENCE_CLASSES.includes(a.class)).map((a) => a.id);
    const result: SessionResult = {
      decision: decided.decision,
      achieved_tier: decided.achievedTier,
      confidence: decided.confidence,
      checks: decided.checks,
      evidence_urls: [],
      evidence_artifact_ids: evidence,
      badges: decided.badges,
      signals: decided.signals,
      ...(s.result?.sanctions_hits || tier === 'T3' || tier === 'T4' ? { sanctions_hits: sanctionsHits } : {}),
      ...(s.result?.chip ? { chip: crossChecks ? { ...s.result.chip, cross_checks: crossChecks } : s.result.chip } : {}),
    };
    await this.storeDerived(s, 'decision_signals', Buffer.from(JSON.stringify({ checks: result.checks, signals: result.signals, decision: result.decision })));
    await this.sessions.advance(s.id, decided.status, () => ({ result }), { within: automatedDecision(result, s.livemode ? LIVE_POLICY_VERSION : TEST_MODE_POLICY_VERSION) });
    this.logger.info({ sessionId: s.id, status: decided.status, waitedMs, ms: Math.round(performance.now() - started) }, 'checks decided');
  }

  private async runCaptureChecks(
    s: SessionEntity,
    checks: readonly string[],
    artifacts: ArtifactRecord[],
    p: CheckProviders,
    identitySealed: string | null,
    /** The answered digital-ID request the session's document step was, or null for a document photo. */
    digitalId: DigitalIdRequestRow | null,
    /** An error that ends the run before its next check (a spent registry budget), or null to go on. */
    stopBefore: () => Error | null = () => null,
  ): Promise<{ outcomes: CheckOutcome[]; sanctionsHits: SanctionsHits; crossChecks?: { mrz: CrossCheck; portrait: CrossCheck } }> {
    let sanctionsHits: SanctionsHits = [];
    let crossChecks: { mrz: CrossCheck; portrait: CrossCheck } | undefined;
    // A digital ID's portrait is the document image of that answer only; a photo session never reads one.
    const ofDocumentStep = (a: ArtifactRecord) => (digitalId ? a.details.request_id === digitalId.id : a.details.source !== 'digital_id');
    const images = async (cls: ArtifactRecord['class']): Promise<ImageInput[]> => {
      const out: ImageInput[] = [];
      // The chip's portrait is evidence of its own, compared by the chip check, never read as a capture.
      for (const a of artifacts.filter((x) => x.class === cls && !isFromChip(x) && (cls !== 'id_document_image' || ofDocumentStep(x)))) {
        const { bytes } = await this.vault.open(a);
        if (bytes) out.push({ bytes, contentType: a.contentType });
      }
      return out;
    };
    const documents = await images('id_document_image');
    const [selfie] = await images('selfie_image');
    const outcomes: CheckOutcome[] = [];
    let failed = false;
    let reading: DocumentReading | undefined;
    const record = (name: string, r: ProviderResult) => {
      outcomes.push({ name, verdict: r.verdict, score: r.score, reason: r.reason, source: signalSource(r.model) });
      failed ||= r.verdict === 'fail';
    };
    const missing = (name: string, what: string) => outcomes.push({ name, verdict: 'error', reason: `No ${what} was captured` });
    const fallback = testModeFallback(s);
    // The challenge and its frames (decrypted from the vault), read once for liveness and anti-spoof alike.
    let liveness: Promise<{ challenge: LivenessChallenge | null; frames: LivenessFrame[] }> | undefined;
    const livenessCapture = () =>
      (liveness ??= this.captures.find(s.id).then(async (c) => ({ challenge: c?.challenge ?? null, frames: await this.frames(artifacts, c?.challenge?.id) })));
    for (const name of checks) {
      if (REGISTRY_CHECK_NAMES.includes(name)) continue; // run by runRegistries, never skipped after a failure
      const stop = stopBefore();
      if (stop) throw stop;
      if (failed) {
        outcomes.push({ name, verdict: 'skipped', reason: 'Not run after a failed check' });
        continue;
      }
      try {
        if (name === DIGITAL_ID_CHECK && digitalId) {
          // Verified when the wallet answered (src/digital-id/digital-id.service.ts); its claims are the document data.
          const outcome = digitalIdCheck(digitalId);
          outcomes.push(outcome);
          failed ||= outcome.verdict === 'fail';
          if (outcome.verdict === 'pass') reading = documentReadingOf(await this.storedPresentation(artifacts, digitalId));
        } else if (name === 'document_ocr') {
          if (!documents.length) missing(name, 'document image');
          else {
            reading = await p.documentReader.read({ images: documents, now: new Date() });
            record(name, reading);
            if (reading.mrz) await this.storeDerived(s, 'mrz_text', Buffer.from(reading.mrz.text));
          }
        } else if (name === 'face_match') {
          if (!documents.length || !selfie) missing(name, 'document image and selfie');
          else {
            const m = await p.faceMatcher.match({ document: documents[0], selfie });
            record(name, m);
            if (m.template) await this.storeDerived(s, 'face_match_template', Buffer.from(JSON.stringify(m.template)));
          }
        } else if (name === 'liveness') {
          const { challenge, frames } = await livenessCapture();
          if (!challenge || !frames.length) missing(name, 'liveness challenge');
          else {
            const v = await p.livenessVerifier.verify({ challenge, frames, referenceFaces: [...(selfie ? [selfie] : []), ...documents.slice(0, 1)] });
            record(name, v);
            if (v.template) await this.storeDerived(s, 'liveness_template', Buffer.from(JSON.stringify(v.template)));
          }
        } else if (name === 'anti_spoof') {
          const { frames } = await livenessCapture();
          if (!selfie) missing(name, 'selfie');
          else record(name, await p.presentationAttackDetector.detect({ selfie, frames: frames.map((f) => f.image) }));
        } else if (name === CHIP_CHECK_NAME && hasChip(s)) {
          // The submitted chip decides, in test mode too (real vectors), with its comparisons to the captures.
          const submitted = s.result!.checks.find((c) => c.name === CHIP_CHECK_NAME);
          const chip = await openChipEvidence(this.vault, artifacts, (s.result!.chip as { submitted_at?: unknown }).submitted_at);
          crossChecks = { mrz: compareChipMrz(chip.mrzText, reading?.mrz?.fields, new Date()), portrait: await compareChipPortrait(chip.portrait, selfie, p.faceMatcher) };
          outcomes.push(submitted ? chipCheckWithCrossChecks(submitted, crossChecks.mrz, crossChecks.portrait) : { name, verdict: 'error', reason: 'The chip result has no Passive Authentication check' });
        } else if (fallback) {
          outcomes.push(fromCheck(fallback.find((c) => c.name === name)!));
          failed ||= outcomes.at(-1)!.verdict === 'fail';
        } else if (name === SANCTIONS_CHECK) {
          const screened = await this.screen(s, reading, identitySealed);
          outcomes.push(screened.outcome);
          sanctionsHits = screened.hits;
        } else if (name === CHIP_CHECK_NAME) {
          outcomes.push({ name, verdict: 'error', reason: 'No chip data was submitted from the mobile app' });
        } else {
          outcomes.push({ name, verdict: 'error', reason: `No ${name} provider is configured on this service` });
        }
      } catch (err) {
        // A full engine queue: the whole job is retried later by the job queue (nothing decided yet).
        if (err instanceof CheckEnginesBusyError) throw err;
        // An engine that throws is an `error` for its check: a person decides, the job does not loop.
        this.logger.error({ err, sessionId: s.id, check: name }, 'check engine failed');
        outcomes.push({ name, verdict: 'error', reason: `The ${name} engine failed` });
      }
      if (!CAPTURE_CHECKS.has(name) && outcomes.at(-1)?.verdict === 'fail') failed = true;
    }
    return { outcomes, sanctionsHits, crossChecks };
  }

  /**
   * T4: the four registry checks on what the business gave. Live: the configured adapters (rate-limited,
   * cached); test mode: the identifiers decide (src/registries/test-mode-registries.ts). A spent budget
   * (RegistryBusyError) is thrown: the job queue runs the session's checks again later.
   */
  private async runRegistries(s: SessionEntity, details: BusinessDetails): Promise<BusinessCheckRun> {
    if (!details.legal_name) {
      const reason = 'The business details were given without a legal name, so no registry record can be compared';
      return { outcomes: REGISTRY_CHECK_NAMES.map((name) => ({ name, verdict: 'error' as const, reason })), evidence: [] };
    }
    const submitted: BusinessSubmission = { ...details, legal_name: details.legal_name };
    if (!s.livemode) return testModeBusinessRun(submitted);
    try {
      return await this.business.run(submitted);
    } catch (err) {
      if (err instanceof RegistryBusyError) throw err;
      this.logger.error({ err, sessionId: s.id }, 'registry checks failed');
      return { outcomes: REGISTRY_CHECK_NAMES.map((name) => ({ name, verdict: 'error' as const, reason: `The ${name} check failed` })), evidence: [] };
    }
  }

  private async storedPresentation(artifacts: ArtifactRecord[], digitalId: DigitalIdRequestRow): Promise<StoredPresentation | null> {
    const record = artifacts.find((a) => a.class === 'digital_id_presentation' && a.details.request_id === digitalId.id);
    if (!record) return null;
    const { bytes } = await this.vault.open(record);
    return bytes ? (JSON.parse(bytes.toString('utf8')) as StoredPresentation) : null;
  }

  private async frames(artifacts: ArtifactRecord[], challengeId: string | undefined): Promise<LivenessFrame[]> {
    const out: LivenessFrame[] = [];
    for (const a of artifacts.filter((x) => x.class === 'selfie_video' && x.details.challenge_id === challengeId)) {
      const { bytes } = await this.vault.open(a);
      if (bytes)
        out.push({
          stepIndex: Number(a.details.step),
          nonce: String(a.details.nonce),
          capturedAt: Number(a.details.captured_at),
          ...(a.details.client_captured_at !== undefined ? { clientCapturedAt: Number(a.details.client_captured_at) } : {}),
          image: { bytes, contentType: a.contentType },
        });
    }
    // By the server's time; frames it received after their step closed share the close, and keep the page's order.
    return out.sort((x, y) => x.capturedAt - y.capturedAt || (x.clientCapturedAt ?? 0) - (y.clientCapturedAt ?? 0));
  }

  /**
   * Live T3/T4: screens the identity read from the document and the one confirmed on the hosted page
   * (both when they differ: src/verification/identity-screening.ts); no list loaded or nothing read is an
   * error, never a pass.
   */
  private async screen(s: SessionEntity, reading: DocumentReading | undefined, sealed: string | null): Promise<{ outcome: CheckOutcome; hits: SanctionsHits }> {
    const f = reading?.mrz?.fields;
    if (!this.sanctions) return { outcome: { name: SANCTIONS_CHECK, verdict: 'error', reason: SANCTIONS_NOT_LOADED }, hits: [] };
    const confirmed = sealed ? await this.vault.unseal<ConfirmedIdentity>(s.tenantId, identitySealContext(s.id), sealed) : null;
    const screened = await liveSanctionsCheck(this.sanctions, s.tenantId, f, confirmed);
    const hits = screened.hits;
    const check = fromCheck(screened.check);
    // A possible match is for a person to judge (docs/sanctions.md): it fails the check in the result, and
    // takes the session to manual review rather than declining it.
    const outcome: CheckOutcome = check.verdict === 'fail' ? { ...check, verdict: 'review' } : check;
    // The hosted page's identity step: what the user typed must be what the document says, or a person looks.
    const differs = confirmed && f ? differencesFromMrz(confirmed, f) : [];
    if (differs.length && outcome.verdict === 'pass') {
      return { outcome: { ...outcome, verdict: 'review', reason: `${outcome.reason ?? ''} The identity confirmed on the hosted page differs from the document's MRZ (${differs.join(', ')}).`.trim() }, hits };
    }
    return { outcome, hits };
  }

  private async storeDerived(s: SessionEntity, cls: 'mrz_text' | 'face_match_template' | 'liveness_template' | 'decision_signals', bytes: Buffer): Promise<void> {
    await this.vault.putDerived({ session: { id: s.id, tenantId: s.tenantId, livemode: s.livemode }, class: cls, bytes, contentType: cls === 'mrz_text' ? 'text/plain' : 'application/json' });
  }
}

/** Test mode: the checks no capture decides (sanctions, registries, chip) come from the deterministic result. */
function testModeFallback(s: SessionEntity): Check[] | null {
  if (s.livemode) return null;
  return testModeResult(s.tier as Tier, testOutcomeOf(s.metadata)).result.checks;
}

type SanctionsHits = NonNullable<SessionResult['sanctions_hits']>;

function fromCheck(c: Check): CheckOutcome {
  return { name: c.name, verdict: c.status, score: c.score, reason: c.reason };
}
