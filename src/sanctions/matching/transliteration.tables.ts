/**
 * Script-to-Latin tables, written here so screening needs no ICU data and no network.
 * Cyrillic follows the ICAO 9303 passport scheme (what a name on a travel document shows),
 * Greek follows ELOT 743 (except χ as "kh", the reading shared with Cyrillic х and Arabic خ), Arabic a simplified UNGEGN-style romanisation with vowel letters
 * read as vowels, since that is how listed Arabic names are usually spelt in Latin.
 */
export const CYRILLIC: Record<string, string> = {
  а: 'a', б: 'b', в: 'v', г: 'g', д: 'd', е: 'e', ё: 'e', ж: 'zh', з: 'z', и: 'i', й: 'i', к: 'k', л: 'l', м: 'm',
  н: 'n', о: 'o', п: 'p', р: 'r', с: 's', т: 't', у: 'u', ф: 'f', х: 'kh', ц: 'ts', ч: 'ch', ш: 'sh', щ: 'shch',
  ъ: 'ie', ы: 'y', ь: '', э: 'e', ю: 'iu', я: 'ia',
  // Ukrainian, Belarusian, Serbian, Macedonian, Kazakh letters
  і: 'i', ї: 'i', є: 'ie', ґ: 'g', ў: 'u', ђ: 'd', ј: 'j', љ: 'lj', њ: 'nj', ћ: 'c', џ: 'dz', ѓ: 'g', ќ: 'k', ѕ: 'dz',
  ә: 'a', ғ: 'g', қ: 'k', ң: 'n', ө: 'o', ұ: 'u', ү: 'u', һ: 'h',
};

export const GREEK: Record<string, string> = {
  α: 'a', ά: 'a', β: 'v', γ: 'g', δ: 'd', ε: 'e', έ: 'e', ζ: 'z', η: 'i', ή: 'i', θ: 'th', ι: 'i', ί: 'i', ϊ: 'i', ΐ: 'i',
  κ: 'k', λ: 'l', μ: 'm', ν: 'n', ξ: 'x', ο: 'o', ό: 'o', π: 'p', ρ: 'r', σ: 's', ς: 's', τ: 't', υ: 'y', ύ: 'y',
  ϋ: 'y', ΰ: 'y', φ: 'f', χ: 'kh', ψ: 'ps', ω: 'o', ώ: 'o',
};

/** Greek digraphs read before single letters. */
export const GREEK_DIGRAPHS: [string, string][] = [
  ['ου', 'ou'], ['ού', 'ou'], ['αι', 'ai'], ['αί', 'ai'], ['ει', 'ei'], ['εί', 'ei'], ['οι', 'oi'], ['οί', 'oi'],
  ['μπ', 'b'], ['ντ', 'nt'], ['γκ', 'g'], ['γγ', 'ng'], ['αυ', 'av'], ['ευ', 'ev'],
];

export const ARABIC: Record<string, string> = {
  ا: 'a', أ: 'a', إ: 'i', آ: 'a', ٱ: 'a', ء: '', ؤ: 'u', ئ: 'i', ب: 'b', ت: 't', ث: 'th', ج: 'j', ح: 'h', خ: 'kh',
  د: 'd', ذ: 'dh', ر: 'r', ز: 'z', س: 's', ش: 'sh', ص: 's', ض: 'd', ط: 't', ظ: 'z', ع: 'a', غ: 'gh', ف: 'f',
  ق: 'q', ك: 'k', ل: 'l', م: 'm', ن: 'n', ه: 'h', ة: 'a', و: 'u', ي: 'i', ى: 'a',
  // Persian and Urdu letters that appear in listed names
  پ: 'p', چ: 'ch', ژ: 'zh', گ: 'g', ک: 'k', ی: 'i', ۀ: 'a', ٹ: 't', ڈ: 'd', ڑ: 'r', ں: 'n', ے: 'e',
  // harakat and tatweel carry no letters of their own here
  'ً': '', 'ٌ': '', 'ٍ': '', 'َ': 'a', 'ُ': 'u', 'ِ': 'i', 'ّ': '', 'ْ': '', 'ـ': '',
};

/** Arabic و/ي at the start of a word or after a vowel letter are consonants. */
export const ARABIC_CONSONANT_FORMS: Record<string, string> = { و: 'w', ي: 'y', ی: 'y' };
