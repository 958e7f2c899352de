import { TIERS, type Tier } from '../../entities/session-result.document';

export { TIERS, type Tier };

export const isTier = (v: unknown): v is Tier => typeof v === 'string' && (TIERS as readonly string[]).includes(v);
export const tierRank = (t: Tier): number => TIERS.indexOf(t);
export const highestTier = (tiers: Tier[]): Tier => tiers.reduce((a, b) => (tierRank(b) > tierRank(a) ? b : a));

/** Tiers that can be ordered today; T6 (government records) is deferred (docs/api-behaviour.md, "Tiers, checks and badges"). */
export const AVAILABLE_TIERS: readonly Tier[] = ['T0', 'T1', 'T2', 'T3', 'T4', 'T5'];

/**
 * The checks each tier runs (docs/api-behaviour.md, "Tiers, checks and badges"). Tiers are cumulative, except that T5 builds on T2, not on T3/T4.
 */
const TIER_CHECKS: Record<Tier, readonly string[]> = {
  T0: [],
  T1: ['document_ocr', 'face_match'],
  T2: ['document_ocr', 'face_match', 'liveness', 'anti_spoof'],
  T3: ['document_ocr', 'face_match', 'liveness', 'anti_spoof', 'sanctions_screening'],
  T4: [
    'document_ocr',
    'face_match',
    'liveness',
    'anti_spoof',
    'sanctions_screening',
    'lei_registry',
    'sec_filings',
    'uk_company_register',
    'au_business_register',
  ],
  T5: ['document_ocr', 'face_match', 'liveness', 'anti_spoof', 'chip_passive_authentication'],
  T6: [],
};

export const checksForTier = (tier: Tier): readonly string[] => TIER_CHECKS[tier];

/**
 * The checks a session runs: its tier's, except that a session whose document step was a digital ID (D24)
 * runs `digital_id` where the photo's `document_ocr` would be. For badges and the achieved tier a passed
 * `digital_id` counts as the document check it replaces (decision-policy.ts).
 */
export const checksForSession = (tier: Tier, usedDigitalId: boolean): readonly string[] =>
  usedDigitalId ? TIER_CHECKS[tier].map((c) => (c === 'document_ocr' ? DIGITAL_ID_CHECK : c)) : TIER_CHECKS[tier];

export const DIGITAL_ID_CHECK = 'digital_id';

/** Each badge is earned when every check of its tier passed (docs/api-behaviour.md, "Tiers, checks and badges"). */
const BADGES: { badge: string; tier: Tier }[] = [
  { badge: 'photo', tier: 'T1' },
  { badge: 'liveness', tier: 'T2' },
  { badge: 'sanctions_clear', tier: 'T3' },
  { badge: 'business', tier: 'T4' },
  { badge: 'chip', tier: 'T5' },
];

export function badgesForPassedChecks(passed: ReadonlySet<string>): string[] {
  return BADGES.filter(({ tier }) => checksForTier(tier).every((c) => passed.has(c))).map((b) => b.badge);
}
