import { parse } from 'mrz';
import type { CheckVerdict, FaceMatcher, ImageInput, MrzFields, MrzFormat } from '../checks/check-providers';
import type { CheckOutcome } from '../checks/check-providers';
import { mrzFields } from '../checks/engines/mrz-text';
import type { Check } from '../../entities/session-result.document';
import { CHIP_CHECK_NAME } from './chip-check.factory';

/** One comparison of the chip with the web captures, as `result.chip.cross_checks` shows it (field names, never values). */
export type CrossCheck = { status: 'match' | 'mismatch' | 'not_checked' | 'error'; reason: string; score?: number; verdict?: CheckVerdict };

const LINE_LENGTH: Record<number, { format: MrzFormat; line: number }> = { 90: { format: 'TD1', line: 30 }, 72: { format: 'TD2', line: 36 }, 88: { format: 'TD3', line: 44 } };

/** The fields both MRZs must agree on, with the words a reason uses for each. */
const COMPARED: [keyof MrzFields, string][] = [
  ['documentNumber', 'document number'],
  ['dateOfBirth', 'date of birth'],
  ['expiryDate', 'expiry date'],
  ['surname', 'surname'],
  ['givenNames', 'given names'],
  ['nationality', 'nationality'],
];

/** DG1's MRZ (authenticated by Passive Authentication) against the MRZ the document reader read from the image. */
export function compareChipMrz(chipMrzText: string | null, imageFields: MrzFields | undefined, now: Date): CrossCheck {
  if (!chipMrzText) return { status: 'not_checked', reason: "The chip's DG1 was not submitted or did not match its signed hash" };
  if (!imageFields) return { status: 'not_checked', reason: 'No MRZ was read from the document image to compare with DG1' };
  const layout = LINE_LENGTH[chipMrzText.length];
  if (!layout) return { status: 'error', reason: "The chip's DG1 MRZ has no ICAO 9303 layout" };
  const lines = Array.from({ length: chipMrzText.length / layout.line }, (_, i) => chipMrzText.slice(i * layout.line, (i + 1) * layout.line));
  const chip = mrzFields(parse(lines), layout.format, now);
  const norm = (v: string) => v.toUpperCase().replace(/[^A-Z0-9]/g, '');
  const differs = COMPARED.filter(([field]) => norm(String(chip[field])) !== norm(String(imageFields[field]))).map(([, words]) => words);
  if (differs.length) return { status: 'mismatch', reason: `The chip's DG1 differs from the document image's MRZ (${differs.join(', ')})` };
  return { status: 'match', reason: "The chip's DG1 matches the document image's MRZ" };
}

/** DG2's portrait against the selfie, through the same face matcher as `face_match`. */
export async function compareChipPortrait(portrait: ImageInput | null, selfie: ImageInput | undefined, matcher: FaceMatcher): Promise<CrossCheck> {
  if (!portrait) return { status: 'error', reason: "No portrait could be read from the chip's DG2 (not submitted, not matching its signed hash, or in a format this service does not decode)" };
  if (!selfie) return { status: 'error', reason: 'No selfie was captured to compare with the chip portrait' };
  const m = await matcher.match({ document: portrait, selfie });
  const status = m.verdict === 'pass' ? 'match' : m.verdict === 'fail' ? 'mismatch' : 'error';
  const said = m.reason ? `: ${m.reason}` : '';
  const reason = status === 'match' ? `The chip portrait (DG2) matches the selfie${said}` : status === 'mismatch' ? `The chip portrait (DG2) does not match the selfie${said}` : `The chip portrait (DG2) could not be matched with the selfie${said}`;
  return { status, reason, verdict: m.verdict, ...(m.score !== undefined ? { score: m.score } : {}) };
}

/**
 * The T5 chip check with the cross-checks folded in: Passive Authentication must pass and neither
 * comparison may differ. A difference fails the check with its reason; a comparison that could not be
 * made (or a borderline face score) sends the session to a person; a DG1 that could not be compared
 * because the image gave no MRZ leaves the check as Passive Authentication decided it.
 */
export function chipCheckWithCrossChecks(submitted: Check, mrz: CrossCheck, portrait: CrossCheck): CheckOutcome {
  const crossed = [mrz, portrait];
  const mismatches = crossed.filter((c) => c.status === 'mismatch').map((c) => c.reason);
  const unsure = [portrait.status === 'error' ? portrait.reason : null, mrz.status === 'error' ? mrz.reason : null].filter((r): r is string => r !== null);
  const reasons = (...more: string[]) => [submitted.reason, ...more].filter(Boolean).join('. ');
  if (submitted.status !== 'pass') return { name: CHIP_CHECK_NAME, verdict: submitted.status === 'fail' ? 'fail' : 'error', score: submitted.score, reason: reasons(...mismatches) };
  if (mismatches.length) return { name: CHIP_CHECK_NAME, verdict: 'fail', score: 0, reason: mismatches.join('. ') };
  if (unsure.length) return { name: CHIP_CHECK_NAME, verdict: portrait.verdict === 'review' ? 'review' : 'error', reason: reasons(...unsure) };
  return { name: CHIP_CHECK_NAME, verdict: 'pass', score: submitted.score, reason: submitted.reason };
}
