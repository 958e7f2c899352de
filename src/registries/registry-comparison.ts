import type { CheckVerdict } from '../checks/check-providers';
import { REGISTRY_CHECKS, type RecordContext, type RegistryAnswer, type RegistryName, type RegistryRecord } from './business-registry';
import { NAME_MATCH_THRESHOLD, nameSimilarity } from './name-match';

/** What the business gave on the T4 step, validated and normalized (src/hosted-flow/business-identifiers.ts). */
export type BusinessSubmission = { legal_name: string; country?: string; lei?: string; uk_company_number?: string; abn?: string; cik?: string };

export type RegistryVerdict = { verdict: CheckVerdict; score?: number; reason: string; details: Record<string, unknown> };

/** Companies House's code as GLEIF's registration authority (`registeredAt.id`). */
const RA_COMPANIES_HOUSE = 'RA000585';

/**
 * One registry's answer against what the business gave (docs/checks.md, "What each check compares"):
 * the identifier exactly, the legal name fuzzily (an alias match is for review), an active status
 * (`unknown` is for review, never a pass), the country, and for GLEIF the national number its record
 * names against a UK company number or ABN given alongside. Fails come before reviews; a registry
 * that could not answer is an `error`, never a pass.
 */
export function compareAnswer(registry: RegistryName, submitted: BusinessSubmission, answer: Exclude<RegistryAnswer, { kind: 'rate_limited' }>): RegistryVerdict {
  const label = REGISTRY_CHECKS[registry].label;
  if (answer.kind === 'error') return { verdict: 'error', reason: answer.reason, details: { registry } };
  if (answer.kind === 'not_found') return { verdict: 'fail', reason: `${answer.reason} (${answer.sourceUrl})`, details: { registry, not_found: true, source_url: answer.sourceUrl } };
  const { record, context } = answer;
  const fails: string[] = [];
  const reviews: string[] = [];
  const given = submitted[REGISTRY_CHECKS[registry].field]!;
  if (normalizeId(record.identifier) !== normalizeId(given)) fails.push(`the record's identifier ${record.identifier} is not ${given}`);
  if (context.unusable) fails.push(`${context.unusable}: it cannot identify the business`);
  if (record.status === 'inactive') fails.push('the company is not active');
  else if (record.status === 'unknown') reviews.push(registry === 'sec_edgar' ? 'EDGAR has no company status, so a person confirms the company operates' : 'the register gives no status');
  const legal = nameSimilarity(submitted.legal_name, record.legal_name);
  const alias = context.aliases.map((a) => ({ a, s: nameSimilarity(submitted.legal_name, a) })).sort((x, y) => y.s - x.s)[0];
  let nameMatch: 'legal_name' | 'alias' | 'none' = 'none';
  if (legal >= NAME_MATCH_THRESHOLD) nameMatch = 'legal_name';
  else if (alias && alias.s >= NAME_MATCH_THRESHOLD) {
    nameMatch = 'alias';
    reviews.push(`"${submitted.legal_name}" matches the alias or former name "${alias.a}", not the legal name (alias_match)`);
  } else fails.push(`the legal name given, "${submitted.legal_name}", does not match`);
  const country = record.jurisdiction?.slice(0, 2) ?? null;
  if (submitted.country && country && country !== submitted.country) fails.push(`the jurisdiction ${record.jurisdiction} is not in ${submitted.country}`);
  const link = registry === 'gleif' ? crossLink(context, submitted, record) : null;
  if (link?.matches === false) reviews.push(link.reason);
  const verdict: CheckVerdict = fails.length ? 'fail' : reviews.length ? 'review' : 'pass';
  const said = `${label} record: ${record.legal_name}, status ${record.status}${record.jurisdiction ? `, ${record.jurisdiction}` : ''} (${record.source_url})`;
  const why = verdict === 'pass' ? 'the identifier, legal name, status and jurisdiction match' : [...fails, ...reviews].join('; ');
  return {
    verdict,
    score: Math.round(Math.max(legal, nameMatch === 'alias' ? alias.s : 0) * 1000) / 1000,
    reason: `${said}: ${why}.${context.flags.length ? ` Flags: ${context.flags.join('; ')}.` : ''}`,
    details: { record, name_match: nameMatch, name_similarity: Math.round(legal * 1000) / 1000, flags: context.flags, ...(link ? { cross_check: link } : {}), ...(context.registeredAs ? { registered_as: context.registeredAs } : {}) },
  };
}

/** A GLEIF record's `registeredAs` against the UK company number or the ABN given with it. */
function crossLink(context: RecordContext, submitted: BusinessSubmission, record: RegistryRecord): { with: string; matches: boolean; reason: string } | null {
  const shown = context.registeredAs?.number?.replace(/[\s-]/g, '').toUpperCase();
  if (!shown) return null;
  const number = normalizeId(shown);
  const isUk = context.registeredAs?.id === RA_COMPANIES_HOUSE || record.jurisdiction?.startsWith('GB');
  if (submitted.uk_company_number && isUk) {
    const matches = number === normalizeId(submitted.uk_company_number);
    return { with: 'uk_company_number', matches, reason: `the LEI names UK company ${shown}, not ${submitted.uk_company_number}` };
  }
  if (submitted.abn && record.jurisdiction?.startsWith('AU')) {
    // Australian LEIs usually name the ACN, which is an ABN's last 9 digits for a company.
    const matches = number === normalizeId(submitted.abn) || number === normalizeId(submitted.abn.slice(2));
    return { with: 'abn', matches, reason: `the LEI names Australian number ${shown}, which is not the ABN ${submitted.abn} nor its ACN` };
  }
  return null;
}

const normalizeId = (v: string): string => {
  const s = v.replace(/[\s-]/g, '').toUpperCase();
  return /^\d+$/.test(s) && s.length <= 10 ? s.replace(/^0+/, '') : s;
};
