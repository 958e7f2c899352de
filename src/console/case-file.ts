import type { EntityManager } from 'typeorm';
import type { SessionEntity } from '../../entities';
import type { AuditLogService } from '../audit/audit-log.service';
import { logIdOf } from '../../entities/audit-canonical';
import { normaliseMrzLines, parseMrz } from '../checks/engines/mrz-text';
import { biometricPolicy } from '../checks/policy/biometric-policy';
import { notFound } from '../errors';
import type { BusinessDetails } from '../hosted-flow/business-identifiers';
import type { DecisionHistory, SessionDecision } from '../sessions/decision-history';
import type { Check, SanctionsHit } from '../../entities/session-result.document';
import type { MemberDecider, SessionService } from '../sessions/session.service';
import type { Tier } from '../sessions/tiers';
import type { ArtifactRecord } from '../vault/artifact-store';
import type { EvidenceVault } from '../vault/evidence-vault';
import type { PendingDecline } from './console-decisions';

/** An image of the case, opened through the console's evidence route (audited with the member). */
export type CaseImage = { artifactId: string; contentType: string; purged: boolean };
/** One liveness frame: its challenge step, the action asked for, and when it was taken (ms after the first frame). */
export type LivenessFrame = CaseImage & { step: number; action: string | null; offsetMs: number | null };
/** One element of the MRZ as read, with its check digit's verdict where the element has one. */
export type MrzElement = { label: string; value: string | null; valid: boolean; checkDigit: boolean };
export type RegistryComparison = { check: string; status: string; reason: string | null; record: Record<string, unknown> | null; nameSimilarity: number | null };
export type AuditTrailEntry = { at: Date; action: string; memberId: string | null; subjectId: string; detail: Record<string, unknown> };

/**
 * Everything a reviewer sees of one session (issue 27, "Case"), each part null when what it shows
 * does not exist for this session (a check that did not run, a tier without it): the page says
 * "not run" instead.
 */
export type CaseFile = {
  /** False for a viewer: evidence (images, frames, the MRZ) is for reviewers and above (docs/decisions.md D16), and is then left empty. */
  evidenceShown: boolean;
  session: { id: string; livemode: boolean; tier: Tier; status: string; referenceId: string | null; createdAt: Date; completedAt: Date | null; decision: string | null };
  checks: Check[];
  documentImages: CaseImage[];
  selfie: CaseImage | null;
  liveness: LivenessFrame[];
  mrz: { format: string; elements: MrzElement[] } | null;
  faceMatch: { score: number | null; status: string; reason: string | null; passAtOrAbove: number; reviewAtOrAbove: number } | null;
  antiSpoof: { score: number | null; status: string; reason: string | null; details: Record<string, unknown> | null } | null;
  sanctions: { screenedName: string | null; hits: SanctionsHit[] } | null;
  registries: { submitted: BusinessDetails | null; checks: RegistryComparison[] } | null;
  chip: { check: Check | null; block: Record<string, unknown> } | null;
  decisions: SessionDecision[];
  pendingDecline: PendingDecline | null;
  /** The user's open request for a human review of this decision (D15): their reason and its deadline. */
  reviewRequest: { reason: string; deadline: Date } | null;
  auditTrail: AuditTrailEntry[];
};

export type CaseFileDeps = {
  sessions: Pick<SessionService, 'findOfTenant'>;
  vault: Pick<EvidenceVault, 'list' | 'open'>;
  history: Pick<DecisionHistory, 'of'>;
  audit: Pick<AuditLogService, 'append'>;
  db: Pick<EntityManager, 'query'>;
  businessOf: (sessionId: string) => Promise<BusinessDetails | null>;
  /** The actions of the session's liveness challenge, by step (hosted_captures). */
  challengeActions: (sessionId: string) => Promise<string[]>;
  pendingDecline: (tenantId: string, sessionId: string) => Promise<PendingDecline | null>;
};

const AUDIT_TRAIL_LIMIT = 100;

/**
 * Reads a case for a member of its tenant (another tenant's session is `not_found`, never a hint)
 * and writes the open to the tenant's audit log with the member's id and the artifacts shown, before
 * anything is returned: an open that was not audited never shows evidence.
 */
export class CaseFiles {
  constructor(private readonly d: CaseFileDeps) {}

  async open(member: { memberId: string; tenantId: string }, sessionId: string, requestId: string, o: { evidence: boolean }): Promise<CaseFile> {
    const decider: MemberDecider = { kind: 'console_member', memberId: member.memberId, tenantId: member.tenantId };
    const s = await this.d.sessions.findOfTenant(decider, sessionId);
    if (!s) throw notFound();
    const all = await this.d.vault.list(s.id);
    const artifacts = o.evidence ? all : [];
    await this.d.audit.append({
      tenantId: s.tenantId,
      livemode: s.livemode,
      action: 'console.case_opened',
      subjectId: s.id,
      detail: { member_id: member.memberId, request_id: requestId, artifact_ids: artifacts.filter((a) => SHOWN.has(a.class)).map((a) => a.id) },
    });
    const checks = s.result?.checks ?? [];
    const [mrz, decisions, pendingDecline, auditTrail, submitted, actions, reviewRequest] = await Promise.all([
      this.mrzOf(artifacts),
      this.d.history.of(s.id),
      this.d.pendingDecline(s.tenantId, s.id),
      this.auditTrailOf(s, all),
      checks.some((c) => REGISTRY_CHECKS.has(c.name)) ? this.d.businessOf(s.id) : Promise.resolve(null),
      artifacts.some((a) => a.class === 'selfie_video') ? this.d.challengeActions(s.id) : Promise.resolve([]),
      this.reviewRequestOf(s.id),
    ]);
    return {
      evidenceShown: o.evidence,
      session: { id: s.id, livemode: s.livemode, tier: s.tier as Tier, status: s.status, referenceId: s.referenceId, createdAt: s.createdAt, completedAt: s.completedAt, decision: s.result?.decision ?? null },
      checks,
      documentImages: artifacts.filter((a) => a.class === 'id_document_image').map(image),
      selfie: artifacts.filter((a) => a.class === 'selfie_image').map(image)[0] ?? null,
      liveness: livenessFrames(artifacts, actions),
      mrz,
      faceMatch: faceMatchOf(checks),
      antiSpoof: antiSpoofOf(checks),
      sanctions: s.result?.sanctions_hits ? { screenedName: mrz ? screenedName(mrz.elements) : null, hits: s.result.sanctions_hits } : null,
      registries: registriesOf(checks, submitted),
      chip: s.result?.chip ? { check: checks.find((c) => c.name === 'chip_passive_authentication') ?? null, block: s.result.chip } : null,
      decisions,
      // A decline proposed in the console and overtaken by a decision through the API no longer waits.
      pendingDecline: s.status === 'manual_review' ? pendingDecline : null,
      reviewRequest,
      auditTrail,
    };
  }

  private async reviewRequestOf(sessionId: string): Promise<CaseFile['reviewRequest']> {
    const rows: { reason: string; expected_by: Date }[] = await this.d.db.query(
      `SELECT rc.reason, j.expected_by FROM review_cases rc JOIN dsr_jobs j ON j.id = rc.dsr_job_id WHERE rc.session_id = $1 AND rc.status = 'open' ORDER BY j.expected_by LIMIT 1`,
      [sessionId],
    );
    return rows[0] ? { reason: rows[0].reason, deadline: new Date(rows[0].expected_by) } : null;
  }

  /** The MRZ the document check read (the `mrz_text` artifact), parsed again to show each check digit's verdict. */
  private async mrzOf(artifacts: ArtifactRecord[]): Promise<CaseFile['mrz']> {
    const record = artifacts.find((a) => a.class === 'mrz_text' && !a.purgedAt);
    if (!record) return null;
    const { bytes } = await this.d.vault.open(record);
    const normalised = bytes ? normaliseMrzLines(bytes.toString('utf8')) : undefined;
    if (!normalised) return null;
    const { result } = parseMrz(normalised.lines);
    return {
      format: normalised.format,
      elements: result.details.map((d) => ({ label: d.label, value: d.value, valid: d.valid, checkDigit: /check digit/i.test(d.label) })),
    };
  }

  /** Who opened this case or its evidence and who decided it: the tenant's audit entries about the session and its artifacts, newest first. */
  private async auditTrailOf(s: SessionEntity, artifacts: ArtifactRecord[]): Promise<AuditTrailEntry[]> {
    const rows: { created_at: Date; action: string; subject_id: string; detail: Record<string, unknown> | string }[] = await this.d.db.query(
      `SELECT created_at, action, subject_id, detail FROM audit_log WHERE log_id = $1 AND subject_id = ANY($2::text[]) ORDER BY log_seq DESC LIMIT $3`,
      [logIdOf(s.tenantId, s.livemode), [s.id, ...artifacts.map((a) => a.id)], AUDIT_TRAIL_LIMIT],
    );
    return rows.map((r) => {
      const detail = typeof r.detail === 'string' ? (JSON.parse(r.detail) as Record<string, unknown>) : r.detail;
      return { at: new Date(r.created_at), action: r.action, subjectId: r.subject_id, memberId: typeof detail.member_id === 'string' ? detail.member_id : null, detail };
    });
  }
}

const SHOWN = new Set(['id_document_image', 'selfie_image', 'selfie_video', 'mrz_text']);
const REGISTRY_CHECKS = new Set(['lei_registry', 'sec_filings', 'uk_company_register', 'au_business_register']);

const image = (a: ArtifactRecord): CaseImage => ({ artifactId: a.id, contentType: a.contentType, purged: a.purgedAt !== null });

function livenessFrames(artifacts: ArtifactRecord[], actions: readonly string[]): LivenessFrame[] {
  const frames = artifacts
    .filter((a) => a.class === 'selfie_video')
    .map((a) => ({ ...image(a), step: Number(a.details.step ?? 0), action: actions[Number(a.details.step)] ?? null, capturedAt: Number(a.details.captured_at) }))
    .sort((x, y) => x.step - y.step || x.capturedAt - y.capturedAt);
  const first = frames.find((f) => Number.isFinite(f.capturedAt))?.capturedAt;
  return frames.map(({ capturedAt, ...f }) => ({ ...f, offsetMs: first !== undefined && Number.isFinite(capturedAt) ? capturedAt - first : null }));
}

function faceMatchOf(checks: Check[]): CaseFile['faceMatch'] {
  const c = checks.find((x) => x.name === 'face_match');
  if (!c) return null;
  return { score: c.score ?? null, status: c.status, reason: c.reason ?? null, passAtOrAbove: biometricPolicy.faceMatch.passAtOrAbove, reviewAtOrAbove: biometricPolicy.faceMatch.reviewAtOrAbove };
}

function antiSpoofOf(checks: Check[]): CaseFile['antiSpoof'] {
  const c = checks.find((x) => x.name === 'anti_spoof');
  return c ? { score: c.score ?? null, status: c.status, reason: c.reason ?? null, details: c.details ?? null } : null;
}

function registriesOf(checks: Check[], submitted: BusinessDetails | null): CaseFile['registries'] {
  const ran = checks.filter((c) => REGISTRY_CHECKS.has(c.name));
  if (!ran.length) return null;
  return {
    submitted,
    checks: ran.map((c) => ({
      check: c.name,
      status: c.status,
      reason: c.reason ?? null,
      record: c.details && typeof c.details.record === 'object' && c.details.record ? (c.details.record as Record<string, unknown>) : null,
      nameSimilarity: typeof c.details?.name_similarity === 'number' ? c.details.name_similarity : null,
    })),
  };
}

/** The name the screening compared: the MRZ's surname and given names. */
function screenedName(elements: MrzElement[]): string | null {
  const name = elements.filter((e) => /name/i.test(e.label) && !e.checkDigit).map((e) => e.value ?? '').join(' ').trim();
  return name || null;
}
