import { yearSpan } from '../birth-date.parser';
import type { MatchReason } from '../sanctions.model';
import type { SanctionsEntry } from '../../../entities/list-snapshot.document';

/**
 * Date of birth as a qualifier, in the spirit of OpenSanctions logic-v2: a confirming date
 * lifts a borderline name, a contradicting one pulls an identical name below the default
 * threshold. Approximate listed dates are widened by a year before comparing.
 */
export const DOB_EXACT_BONUS = 0.1;
export const DOB_YEAR_BONUS = 0.05;
export const DOB_DAY_MISMATCH = -0.1;
export const DOB_NEAR_YEAR_MISMATCH = -0.2;
export const DOB_YEAR_MISMATCH = -0.35;
export const NATIONALITY_BONUS = 0.05;
export const NATIONALITY_MISMATCH = -0.1;

export function dobQualifier(queryDate: string | undefined, entry: SanctionsEntry): MatchReason | undefined {
  if (!queryDate || entry.birth_dates.length === 0) return undefined;
  const qYear = Number(queryDate.slice(0, 4));
  const qFull = queryDate.length === 10;
  let bestGap = Infinity;
  for (const d of entry.birth_dates) {
    if (qFull && d.kind === 'exact' && d.from === queryDate) return { feature: 'dob_match', score: DOB_EXACT_BONUS, detail: `date of birth ${queryDate} equals listed ${d.raw}` };
  }
  for (const d of entry.birth_dates) {
    const [lo, hi] = yearSpan(d);
    if (qYear >= lo && qYear <= hi) {
      if (qFull && d.kind === 'exact') return { feature: 'dob_day_mismatch', score: DOB_DAY_MISMATCH, detail: `year ${qYear} matches listed ${d.raw} but the day differs` };
      return { feature: 'dob_year_match', score: DOB_YEAR_BONUS, detail: `year ${qYear} within listed ${d.raw}` };
    }
    bestGap = Math.min(bestGap, qYear < lo ? lo - qYear : qYear - hi);
  }
  const listed = entry.birth_dates.map((d) => d.raw).join(', ');
  return bestGap <= 1
    ? { feature: 'dob_mismatch', score: DOB_NEAR_YEAR_MISMATCH, detail: `date of birth ${queryDate} is ${bestGap} year off listed ${listed}` }
    : { feature: 'dob_mismatch', score: DOB_YEAR_MISMATCH, detail: `date of birth ${queryDate} is ${bestGap} years off listed ${listed}` };
}

export function nationalityQualifier(nationality: string | undefined, entry: SanctionsEntry): MatchReason | undefined {
  if (!nationality || entry.nationalities.length === 0) return undefined;
  return entry.nationalities.includes(nationality)
    ? { feature: 'nationality_match', score: NATIONALITY_BONUS, detail: `nationality ${nationality} is listed` }
    : { feature: 'nationality_mismatch', score: NATIONALITY_MISMATCH, detail: `nationality ${nationality} is not among listed ${entry.nationalities.join(', ')}` };
}
