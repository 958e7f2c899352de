// The codes alone: the package's main entry also loads the country names of its 80 languages, which nothing here shows.
import { alpha3ToAlpha2 } from 'i18n-iso-countries/index';

/**
 * ICAO 9303 codes that are not ISO 3166-1 alpha-3: Germany prints `D`, and the British nationality
 * classes (overseas territories citizen, national (overseas), overseas citizen, protected person,
 * subject) are all the United Kingdom for screening.
 */
const ICAO_ONLY: Record<string, string> = { D: 'DE', GBD: 'GB', GBN: 'GB', GBO: 'GB', GBP: 'GB', GBS: 'GB' };

/**
 * The ISO 3166-1 alpha-2 code the screening takes, from the nationality an MRZ prints (ICAO's alpha-3,
 * filler `<` stripped). Codes with no country (UNO, XXA stateless, XXX unspecified...) give
 * undefined: the person is screened without a nationality rather than not at all.
 */
export function nationalityFromMrz(code: string | undefined): string | undefined {
  const c = (code ?? '').replace(/</g, '').toUpperCase();
  if (!c) return undefined;
  return ICAO_ONLY[c] ?? alpha3ToAlpha2(c) ?? undefined;
}
