import type { CaseFile, CaseImage } from '../../src/console/case-file';
import type { HumanDecision } from '../../src/sessions/decision-history';
import { dateTime, errorSummary, esc, fill, hidden, notice, type PageContent, type ReviewPage, section, summaryRow, table, word } from './review-html';
import { casePath, QUEUE_PATH } from './queue-page';

/** The console's route that opens one artifact of a case (signed like an evidence link, audited with the member). */
export type EvidenceHref = (artifactId: string) => string;

export type DecideForm = {
  /** Null when the member may not decide (a viewer): the page shows why, and no form. */
  formToken: string | null;
  chosen?: string;
  reason?: string;
  errors: { field: string; text: string }[];
  done?: string | null;
};

/** Which decisions a session in this status takes (docs/decisions.md D16). */
export function decisionsFor(status: string): HumanDecision[] {
  if (status === 'manual_review') return ['approve', 'decline'];
  if (status === 'success' || status === 'failed') return ['reverse'];
  return [];
}

const notRun = (p: ReviewPage): string => `<p class="hint">${esc(p.rm.notRun)}</p>`;
function img(p: ReviewPage, href: EvidenceHref, i: CaseImage, alt: string): string {
  if (i.purged) return `<p class="hint">${esc(p.rm.purged)}</p>`;
  return `<img class="evidence" src="${esc(href(i.artifactId))}" alt="${esc(alt)}">`;
}

function decideSection(p: ReviewPage, c: CaseFile, f: DecideForm): string {
  const { rm } = p;
  const pending = c.pendingDecline
    ? notice(c.pendingDecline.memberId === p.memberId ? rm.pendingDeclineOwn : fill(rm.pendingDecline, { member: c.pendingDecline.memberId, date: dateTime(p, c.pendingDecline.proposedAt), reason: c.pendingDecline.reason }))
    : '';
  const options = decisionsFor(c.session.status);
  if (!f.formToken) return section('decide-h', rm.decideHeading, `${pending}<p>${esc(fill(rm.viewerCannotDecide, { role: p.role }))}</p>`);
  if (!options.length) return section('decide-h', rm.decideHeading, `${pending}<p>${esc(fill(rm.nothingToDecide, { status: c.session.status }))}</p>`);
  const radios = options
    .map(
      (d, i) =>
        `<div class="radio"><input class="radio__input" type="radio" id="decision-${d}" name="decision" value="${d}"${f.chosen === d || (!f.chosen && options.length === 1) ? ' checked' : ''}${i === 0 ? ' required' : ''}><label class="radio__label" for="decision-${d}">${esc(word(rm, `decision_${d}`, d))}</label></div>`,
    )
    .join('');
  const reasonInvalid = f.errors.some((e) => e.field === 'reason');
  return section(
    'decide-h',
    rm.decideHeading,
    `${pending}<form method="post" action="${esc(casePath(c.session.id))}/decisions" novalidate>${hidden('form_token', f.formToken)}
<fieldset class="fieldset" id="decision"><legend class="label">${esc(rm.decision)}</legend>${radios}</fieldset>
<div class="field"><label class="label" for="reason">${esc(rm.decisionReason)}</label><p class="hint" id="reason-hint">${esc(rm.decisionReasonHint)}</p>
<textarea class="text-input" id="reason" name="reason" rows="3" minlength="3" maxlength="2000" aria-describedby="reason-hint"${reasonInvalid ? ' aria-invalid="true"' : ''} required>${esc(f.reason ?? '')}</textarea></div>
<div class="actions"><button class="button button--primary" type="submit">${esc(rm.recordDecision)}</button></div></form>`,
  );
}

/** The user's open review request (D15): their reason, the deadline, and the form that keeps the decision. */
function reviewRequestSection(p: ReviewPage, c: CaseFile, f: DecideForm): string {
  const { rm } = p;
  if (!c.reviewRequest) return '';
  const lead = `<p>${esc(fill(rm.reviewRequestLead, { date: dateTime(p, c.reviewRequest.deadline) }))}</p>`;
  const reason = `<dl class="summary">${summaryRow(rm.reviewRequestReason, esc(c.reviewRequest.reason))}</dl>`;
  const form = f.formToken
    ? `<form method="post" action="${esc(casePath(c.session.id))}/review-request" novalidate>${hidden('form_token', f.formToken)}
<div class="field"><label class="label" for="keep-reason">${esc(rm.decisionReason)}</label><p class="hint" id="keep-reason-hint">${esc(rm.decisionReasonHint)}</p>
<textarea class="text-input" id="keep-reason" name="reason" rows="3" minlength="3" maxlength="2000" aria-describedby="keep-reason-hint" required></textarea></div>
<div class="actions"><button class="button button--secondary" type="submit">${esc(rm.keepDecision)}</button></div></form>`
    : '';
  return section('review-request-h', rm.reviewRequestHeading, `${lead}${reason}${form}`);
}

/**
 * A case (issue 27, "Case"): the decision form first (the second and third actions of a decision),
 * then the evidence, each part saying "not run" when this session has none, then the decision
 * history and the audit trail. Images load through the console's evidence route.
 */
export function casePage(p: ReviewPage, c: CaseFile, o: { form: DecideForm; evidence: EvidenceHref }): PageContent {
  const { rm } = p;
  const s = c.session;
  const title = fill(rm.caseTitle, { id: s.id });
  const head = `<p><a href="${QUEUE_PATH}">${esc(rm.backToQueue)}</a></p>${errorSummary(p, o.form.errors)}${o.form.done ? notice(o.form.done) : ''}<h1>${esc(title)}</h1>
<dl class="summary">${summaryRow(rm.status, esc(s.status))}${summaryRow(rm.mode, esc(s.livemode ? rm.live : rm.test))}${summaryRow(rm.tier, esc(s.tier))}${s.referenceId ? summaryRow(rm.reference, esc(s.referenceId)) : ''}
${summaryRow(rm.created, esc(dateTime(p, s.createdAt)))}${s.completedAt ? summaryRow(rm.enteredReview, esc(dateTime(p, s.completedAt))) : ''}</dl>`;

  const checks = c.checks.length
    ? table(
        rm.checksHeading,
        [rm.checksHeading, rm.status, rm.score, rm.reasons],
        c.checks.map((k) => [esc(k.name), esc(word(rm, `checkStatus_${k.status}`, k.status)), k.score === undefined ? '' : esc(String(k.score)), esc(k.reason ?? '')]),
      )
    : notRun(p);

  const hiddenEvidence = `<p class="hint">${esc(rm.evidenceForReviewers)}</p>`;
  const document = !c.evidenceShown ? hiddenEvidence : c.documentImages.length ? c.documentImages.map((i, n) => img(p, o.evidence, i, fill(rm.documentImage, { n: String(n + 1) }))).join('') : notRun(p);
  const selfie = !c.evidenceShown ? hiddenEvidence : c.selfie ? img(p, o.evidence, c.selfie, rm.selfieImage) : notRun(p);
  const liveness = !c.evidenceShown ? hiddenEvidence : c.liveness.length
    ? `<ol class="strip" tabindex="0" aria-label="${esc(rm.livenessHeading)}">${c.liveness
        .map((f) => {
          const offset = f.offsetMs === null ? '' : `+${new Intl.NumberFormat(p.locale, { style: 'unit', unit: 'second', maximumFractionDigits: 1 }).format(f.offsetMs / 1000)}`;
          return `<li class="strip__frame"><figure>${img(p, o.evidence, f, fill(rm.livenessFrameAlt, { step: String(f.step + 1) }))}<figcaption>${esc(fill(rm.livenessFrame, { step: String(f.step + 1), action: f.action ?? '?', offset }))}</figcaption></figure></li>`;
        })
        .join('')}</ol>`
    : notRun(p);

  const mrz = !c.evidenceShown
    ? hiddenEvidence
    : c.mrz
    ? `<p class="hint">${esc(c.mrz.format)}</p>${table(
        rm.mrzHeading,
        [rm.mrzElement, rm.mrzValue, rm.mrzVerdict],
        c.mrz.elements.map((e) => [esc(e.label), `<span class="key">${esc(e.value ?? '')}</span>`, e.checkDigit ? (e.valid ? esc(rm.checkDigitHolds) : `<strong>${esc(rm.checkDigitFails)}</strong>`) : esc(rm.notACheckDigit)]),
      )}`
    : notRun(p);

  const face = c.faceMatch
    ? `<dl class="summary">${summaryRow(rm.score, esc(c.faceMatch.score === null ? rm.noScore : String(c.faceMatch.score)))}${summaryRow(
        rm.thresholds,
        esc(fill(rm.thresholdsValue, { pass: String(c.faceMatch.passAtOrAbove), review: String(c.faceMatch.reviewAtOrAbove) })),
      )}${summaryRow(rm.status, esc(word(rm, `checkStatus_${c.faceMatch.status}`, c.faceMatch.status)))}${c.faceMatch.reason ? summaryRow(rm.reasons, esc(c.faceMatch.reason)) : ''}</dl>`
    : notRun(p);

  const spoof = c.antiSpoof
    ? `<dl class="summary">${summaryRow(rm.rawScore, esc(c.antiSpoof.score === null ? rm.noScore : String(c.antiSpoof.score)))}${summaryRow(rm.status, esc(word(rm, `checkStatus_${c.antiSpoof.status}`, c.antiSpoof.status)))}${
        c.antiSpoof.reason ? summaryRow(rm.reasons, esc(c.antiSpoof.reason)) : ''
      }${Object.entries(c.antiSpoof.details ?? {})
        .filter(([, v]) => typeof v === 'number')
        .map(([k, v]) => summaryRow(k, esc(String(v))))
        .join('')}</dl>`
    : notRun(p);

  const sanctions = c.sanctions
    ? c.sanctions.hits.length
      ? table(
          rm.sanctionsHeading,
          [rm.list, rm.listReference, rm.screenedName, rm.matchedName, rm.score],
          c.sanctions.hits.map((h) => [esc(h.list), esc(h.reference), esc(c.sanctions!.screenedName ?? ''), esc(h.matched_name), esc(String(h.score))]),
        )
      : `<p>${esc(rm.sanctionsNoHits)}</p>`
    : notRun(p);

  const registries = c.registries
    ? c.registries.checks
        .map((r) => {
          const fields = [...new Set([...Object.keys(c.registries!.submitted ?? {}), ...Object.keys(r.record ?? {})])].filter((k) => k !== 'registered_address');
          const val = (v: unknown) => (v === undefined || v === null ? '' : esc(typeof v === 'object' ? JSON.stringify(v) : String(v)));
          const heading = `<h3>${esc(r.check)}: ${esc(word(rm, `checkStatus_${r.status}`, r.status))}</h3>${r.reason ? `<p>${esc(r.reason)}</p>` : ''}`;
          if (!fields.length) return `${heading}<p class="hint">${esc(rm.nothingSubmitted)}; ${esc(rm.noRecord)}</p>`;
          return `${heading}${table(
            fill(rm.registryRecord, { check: r.check }),
            ['', rm.submitted, fill(rm.registryRecord, { check: r.check })],
            fields.map((k) => [esc(k), val((c.registries!.submitted as Record<string, unknown> | null)?.[k]), val(r.record?.[k])]),
          )}`;
        })
        .join('')
    : notRun(p);

  const chip = c.chip
    ? `<dl class="summary">${summaryRow(rm.chipVerdict, esc(c.chip.check ? `${word(rm, `checkStatus_${c.chip.check.status}`, c.chip.check.status)}${c.chip.check.reason ? `: ${c.chip.check.reason}` : ''}` : String(c.chip.block.outcome ?? '')))}${['ds_signature', 'chain', 'data_group_hashes']
        .filter((k) => c.chip!.block[k])
        .map((k) => summaryRow(k, esc(String((c.chip!.block[k] as { status?: unknown }).status ?? ''))))
        .join('')}</dl>`
    : notRun(p);

  const history = c.decisions.length
    ? `<ol class="history">${c.decisions
        .map(
          (d) =>
            `<li><strong>${esc(word(rm, `decision_${d.decision}`, d.decision))}</strong> (${esc(word(rm, `source_${d.source}`, d.source))}) ${esc(d.from_status)} → ${esc(d.to_status)}, ${esc(dateTime(p, new Date(d.decided_at)))}${
              d.reviewer_id ? ` ${esc(fill(rm.by, { who: d.reviewer_id }))}` : ''
            }${d.policy_version ? ` <span class="hint">${esc(fill(rm.policyVersion, { version: d.policy_version }))}</span>` : ''}${d.reason ? `<br>${esc(d.reason)}` : ''}</li>`,
        )
        .join('')}</ol>`
    : `<p>${esc(rm.historyNone)}</p>`;

  const audit = c.auditTrail.length
    ? table(
        rm.auditHeading,
        [rm.auditWhen, rm.auditWhat, rm.auditWho, rm.auditSubject],
        c.auditTrail.map((a) => [esc(dateTime(p, a.at)), esc(a.action), esc(a.memberId ?? rm.system), esc(a.subjectId)]),
      )
    : `<p>${esc(rm.auditNone)}</p>`;

  return {
    title,
    body: [
      head,
      decideSection(p, c, o.form),
      reviewRequestSection(p, c, o.form),
      section('checks-h', rm.checksHeading, checks),
      section('document-h', rm.documentHeading, document),
      section('selfie-h', rm.selfieHeading, selfie),
      section('liveness-h', rm.livenessHeading, liveness),
      section('mrz-h', rm.mrzHeading, mrz),
      section('face-h', rm.faceMatchHeading, face),
      section('spoof-h', rm.antiSpoofHeading, spoof),
      section('sanctions-h', rm.sanctionsHeading, sanctions),
      section('registries-h', rm.registriesHeading, registries),
      section('chip-h', rm.chipHeading, chip),
      section('history-h', rm.historyHeading, history),
      section('audit-h', rm.auditHeading, audit),
    ].join('\n'),
  };
}

export function caseNotFoundPage(p: ReviewPage): PageContent {
  return { title: p.rm.notFoundTitle, body: `<p><a href="${QUEUE_PATH}">${esc(p.rm.backToQueue)}</a></p><h1>${esc(p.rm.notFoundTitle)}</h1><p>${esc(p.rm.notFoundLead)}</p>` };
}
