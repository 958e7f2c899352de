// The codes alone: the package's main entry also loads the country names of its 80 languages, which nothing here shows.
import countries from 'i18n-iso-countries/index';
import type { CheckOutcome, DocumentReading, MrzFields } from '../checks/check-providers';
import { DIGITAL_ID_CHECK } from '../sessions/tiers';
import type { DigitalIdRequestRow } from './digital-id-request.repository';
import type { DocumentClaim } from './requested-claims';

/** The `digital_id_presentation` artifact's JSON (digital-id.service.ts `keep`). */
export interface StoredPresentation {
  readonly format: string;
  readonly credential_type: string;
  readonly claims: Partial<Record<DocumentClaim, unknown>>;
}

const FORMAT_NAMES: Record<string, string> = { mso_mdoc: 'ISO 18013-5 mdoc', 'dc+sd-jwt': 'SD-JWT VC' };

/**
 * The `digital_id` check from the answered request (D24): a pass names the issuer, the format and what was
 * verified; a refusal names the step that failed; a status list the service could not read is an error.
 */
export function digitalIdCheck(row: DigitalIdRequestRow): CheckOutcome {
  const outcome = row.outcome as Record<string, unknown> | null;
  if (row.status === 'verified' && outcome && typeof outcome.format === 'string') {
    const verified = (outcome.verified as string[]).join(', ');
    return {
      name: DIGITAL_ID_CHECK,
      verdict: 'pass',
      score: 1,
      reason: `${FORMAT_NAMES[outcome.format] ?? outcome.format} ${String(outcome.credential_type)} issued by ${String(outcome.issuer)}: verified ${verified}`,
      details: { format: outcome.format, credential_type: outcome.credential_type, issuer: outcome.issuer, issuer_country: outcome.issuer_country, verified: outcome.verified, channel: row.channel },
      source: 'digital_id',
    };
  }
  const reason = typeof outcome?.reason === 'string' ? outcome.reason : 'verification_failed';
  const detail = typeof outcome?.detail === 'string' ? outcome.detail : 'the answer could not be verified';
  return { name: DIGITAL_ID_CHECK, verdict: row.status === 'failed' ? 'fail' : 'error', reason: `${reason}: ${detail}`, details: { failed_step: reason, channel: row.channel } };
}

/**
 * The credential's claims as the document data the later checks read (T3 screening reads the name, birth
 * date and nationality as it would from an MRZ). Nationality comes as ISO alpha-2 and is given as the
 * MRZ's alpha-3.
 */
export function documentReadingOf(presentation: StoredPresentation | null): DocumentReading | undefined {
  if (!presentation) return undefined;
  const c = presentation.claims;
  const text = (v: unknown) => (typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : '');
  const alpha3 = (v: unknown) => {
    const code = text(v).toUpperCase();
    return code.length === 2 ? (countries.alpha2ToAlpha3(code) ?? code) : code;
  };
  const fields: MrzFields = {
    format: 'TD1',
    documentType: presentation.format === 'mso_mdoc' ? 'mDL' : 'PID',
    issuingState: alpha3(c.issuing_country),
    documentNumber: text(c.document_number),
    surname: text(c.family_name),
    givenNames: text(c.given_name),
    nationality: alpha3(c.nationality),
    dateOfBirth: text(c.birth_date),
    sex: 'X',
    expiryDate: text(c.expiry_date),
  };
  return {
    verdict: 'pass',
    reason: 'Read from the verified digital ID',
    model: { provider: 'digital_id', model: presentation.format, version: '1' },
    mrz: { text: '', fields },
  };
}
