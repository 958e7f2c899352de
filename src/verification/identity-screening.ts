import type { ConfirmedIdentity } from '../hosted-flow/identity-confirmation';
import { nationalityFromMrz } from '../sanctions/icao-nationality';
import { normalizeName } from '../sanctions/matching/name-normalizer';
import type { SanctionsHit, ScreeningQuery } from '../sanctions/sanctions.model';
import { validateScreeningQuery } from '../sanctions/screening-query';
import type { ListUsed, SanctionsScreeningService, Screening } from '../sanctions/screening.service';
import { SANCTIONS_CHECK, SANCTIONS_NOT_LOADED, sanctionsCheck } from '../sessions/sanctions-check';
import type { Check } from '../../entities/session-result.document';
import type { MrzFields } from '../checks/check-providers';

/** What a live check reads from the MRZ for screening (MrzFields; nationality as printed, ICAO alpha-3). */
export type MrzIdentity = Pick<MrzFields, 'givenNames' | 'surname' | 'dateOfBirth'> & { nationality?: string };

/** Where a screened identity came from: the document's machine-readable zone, or the hosted page's identity step. */
export type IdentitySource = 'document_mrz' | 'identity_step';

export type IdentityToScreen = { source: IdentitySource; query: ScreeningQuery };

export type IdentitiesToScreen = {
  identities: IdentityToScreen[];
  /** Identities that could not be screened (a name the validator refuses), with its message. */
  rejected: { source: IdentitySource; message: string }[];
};

/** Same person for screening purposes: the same name tokens (any order, case, accents, punctuation) and the same date of birth. */
const sameIdentity = (a: ScreeningQuery, b: ScreeningQuery): boolean =>
  a.birthDate === b.birthDate && normalizeName(a.fullName).tokens.sort().join(' ') === normalizeName(b.fullName).tokens.sort().join(' ');

/**
 * The identities a live T3/T4 check screens: the name and date of birth read from the MRZ, and
 * those the user confirmed on the hosted page's identity step when the flow has one. When both
 * name the same person they are screened once; when they differ (a name the MRZ cut short, a
 * transliteration, a typo, or a different person) both are, so neither can hide a listed one.
 *
 * The MRZ's nationality (ICAO alpha-3, turned into the lists' alpha-2) goes with the MRZ's identity;
 * the identity step asks for none, and a missing qualifier can add hits for a human to clear, never
 * hide one.
 */
export function identitiesToScreen(mrz: MrzIdentity | undefined, confirmed: ConfirmedIdentity | null | undefined): IdentitiesToScreen {
  const out: IdentitiesToScreen = { identities: [], rejected: [] };
  const add = (source: IdentitySource, fullName: string, birthDate: string | undefined, nationality?: string) => {
    let v = validateScreeningQuery({ fullName: fullName.trim(), birthDate, nationality });
    // A date the validator refuses (an MRZ with unknown parts) must not stop the name being screened.
    if (!v.ok && v.error.field === 'birthDate') v = validateScreeningQuery({ fullName: fullName.trim(), nationality });
    if (!v.ok) return void out.rejected.push({ source, message: v.error.message });
    if (!out.identities.some((i) => sameIdentity(i.query, v.query))) out.identities.push({ source, query: v.query });
  };
  if (mrz) add('document_mrz', `${mrz.givenNames} ${mrz.surname}`, mrz.dateOfBirth || undefined, nationalityFromMrz(mrz.nationality));
  if (confirmed) add('identity_step', `${confirmed.given_names} ${confirmed.surname}`, confirmed.date_of_birth || undefined);
  return out;
}

/**
 * One screening from several: each entry once, with its best score, best first; the list
 * versions of all of them (the same ones unless a load landed in between).
 */
export function mergeScreenings(screenings: Screening[]): Screening {
  const best = new Map<string, SanctionsHit>();
  for (const s of screenings) {
    for (const h of s.hits) {
      const key = `${h.list}\u0000${h.list_version}\u0000${h.entry_id}`;
      const seen = best.get(key);
      if (!seen || h.score > seen.score) best.set(key, h);
    }
  }
  const lists = new Map<string, ListUsed>();
  for (const s of screenings) for (const l of s.lists) lists.set(`${l.list}\u0000${l.version}`, l);
  return {
    hits: [...best.values()].sort((a, b) => b.score - a.score),
    lists: [...lists.values()],
    threshold: screenings[0]?.threshold ?? 0,
  };
}

/** Screens every identity against the newest versions with the tenant's threshold, as one screening. */
export async function screenIdentities(
  sanctions: Pick<SanctionsScreeningService, 'screenForTenant'>,
  tenantId: string,
  identities: IdentityToScreen[],
): Promise<Screening> {
  const screenings: Screening[] = [];
  for (const i of identities) screenings.push(await sanctions.screenForTenant(tenantId, i.query, { current: true }));
  return mergeScreenings(screenings);
}

/**
 * The whole live `sanctions_screening` check of a T3/T4 session (RunChecksJob.screen calls it):
 * `error` with SANCTIONS_NOT_LOADED when no list is in force, `error` when nothing screenable was
 * read or confirmed, else the merged screening of the MRZ's and the identity step's identities.
 * The hits are returned to the caller, never kept on a shared instance (jobs run concurrently).
 */
export async function liveSanctionsCheck(
  sanctions: Pick<SanctionsScreeningService, 'hasLists' | 'screenForTenant'>,
  tenantId: string,
  mrz: MrzIdentity | undefined,
  confirmed: ConfirmedIdentity | null | undefined,
): Promise<{ check: Check; hits: SanctionsHit[] }> {
  if (!(await sanctions.hasLists())) return { check: { name: SANCTIONS_CHECK, status: 'error', reason: SANCTIONS_NOT_LOADED }, hits: [] };
  const { identities, rejected } = identitiesToScreen(mrz, confirmed);
  if (!identities.length) {
    const reason = rejected.length ? `The identity read cannot be screened: ${rejected[0].message}` : 'No identity was read from the document to screen';
    return { check: { name: SANCTIONS_CHECK, status: 'error', reason }, hits: [] };
  }
  const screening = await screenIdentities(sanctions, tenantId, identities);
  const check = sanctionsCheck(screening);
  if (identities.length > 1) check.reason = `${check.reason ?? ''} Screened both the document's MRZ and the identity confirmed on the hosted page, which differ.`.trim();
  return { check, hits: screening.hits };
}
