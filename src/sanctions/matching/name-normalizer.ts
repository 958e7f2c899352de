import { ARABIC, ARABIC_CONSONANT_FORMS, CYRILLIC, GREEK, GREEK_DIGRAPHS } from './transliteration.tables';

const LATIN_SPECIAL: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i', ŀ: 'l', ĸ: 'k' };

const ARABIC_LETTER = /[\u0600-\u06ff]/;
const VOWEL_OUT = new Set(['a', 'i', 'u']);

function transliterateArabicWord(word: string): string {
  let out = '';
  const chars = [...word];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    const consonant = ARABIC_CONSONANT_FORMS[c];
    const prevOut = out[out.length - 1];
    if (consonant && (i === 0 || (prevOut !== undefined && VOWEL_OUT.has(prevOut) && i < chars.length - 1))) out += consonant;
    else out += ARABIC[c] ?? c;
  }
  // The article ال is written joined; split it off so "الزمر" aligns with "Al-Zomor".
  return out.replace(/^al(?=[^aeiou]{1,2}[a-z])/, 'al ');
}

function transliterate(s: string): { text: string; scripts: Set<string> } {
  const scripts = new Set<string>();
  let text = s;
  if (/[\u0370-\u03ff]/.test(text)) {
    scripts.add('greek');
    for (const [from, to] of GREEK_DIGRAPHS) text = text.split(from).join(to);
    text = [...text].map((c) => GREEK[c] ?? c).join('');
  }
  if (/[\u0400-\u04ff]/.test(text)) {
    scripts.add('cyrillic');
    text = [...text].map((c) => CYRILLIC[c] ?? c).join('');
  }
  if (ARABIC_LETTER.test(text)) {
    scripts.add('arabic');
    text = text.replace(/[\u0600-\u06ff]+/g, (w) => transliterateArabicWord(w));
  }
  return { text, scripts };
}

export interface NormalizedName {
  tokens: string[];
  /** Non-Latin scripts that were transliterated, for the explanation. */
  scripts: string[];
}

/**
 * NFKC, case folding, transliteration, removal of diacritics, and punctuation to spaces
 * (apostrophes vanish: "D'S" -> "ds", "Al-Ta'i" -> "al tai").
 */
export function normalizeName(input: string): NormalizedName {
  const folded = input.normalize('NFKC').toLowerCase();
  const { text, scripts } = transliterate(folded);
  const ascii = text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[ßæœøłđðþıŀĸ]/g, (c) => LATIN_SPECIAL[c] ?? c)
    .replace(/['’‘`´ʼʻ]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
  return { tokens: ascii ? ascii.split(' ') : [], scripts: [...scripts] };
}

/** Particles and legal-form words: they align like any token but carry little weight. */
export const LOW_WEIGHT = new Set([
  'al', 'el', 'ul', 'bin', 'ibn', 'bint', 'ben', 'de', 'da', 'del', 'della', 'der', 'den', 'van', 'von', 'la', 'le', 'di', 'du', 'dos', 'das', 'do', 'y', 'e',
  'the', 'of', 'and', 'for', 'co', 'company', 'ltd', 'limited', 'llc', 'inc', 'corp', 'corporation', 'gmbh', 'sa', 'ag', 'plc', 'jsc', 'ooo', 'oao', 'pjsc', 'group',
  'mr', 'mrs', 'haji', 'hajji', 'mullah', 'sheikh', 'shaikh', 'dr',
]);
