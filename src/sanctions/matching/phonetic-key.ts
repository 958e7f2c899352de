/**
 * A consonant-skeleton key: digraphs folded, similar consonants merged, vowels dropped after the
 * first letter, doubles collapsed. It is deliberately coarse so that spellings of one name across
 * romanisations share a key ("Mohammed", "Muhammad", Arabic "محمد" -> "mhmd"; "Haniya",
 * "Haniyya" -> "hn"). It serves blocking and as a bonus in token comparison, never alone.
 */
export function phoneticKey(token: string): string {
  let s = foldRomanisation(token)
    .replace(/^ph/, 'f')
    .replace(/sch/g, 's')
    .replace(/kh/g, 'h')
    .replace(/sh/g, 's')
    .replace(/ch/g, 'c')
    .replace(/zh/g, 'j')
    .replace(/ts/g, 's')
    .replace(/th/g, 't')
    .replace(/dh/g, 'd')
    .replace(/gh/g, 'g')
    .replace(/ph/g, 'f')
    .replace(/ck/g, 'k')
    .replace(/[qc](?![ei])/g, 'k')
    .replace(/c(?=[ei])/g, 's')
    .replace(/z/g, 's')
    .replace(/w/g, 'v')
    .replace(/x/g, 'k')
    .replace(/dj/g, 'j');
  const first = /^[aeiouy]/.test(s) ? 'a' : s[0] ?? '';
  s = s.slice(1).replace(/[aeiouyh]/g, '');
  s = (first + s).replace(/(.)\1+/g, '$1');
  return s;
}

/**
 * Folds spelling conventions of different romanisations onto one form: ICAO/BGN digraphs
 * ("dzh", "kh", "ou"), doubled letters and y/i. Compared with Jaro-Winkler when the raw
 * spellings differ ("Akhmad" from Cyrillic vs "Ahmad", "Dzhimmi" vs "Jimmy").
 */
export function foldRomanisation(token: string): string {
  return token
    .replace(/dzh|dj|zh|tz(?=[aeiou])/g, 'j')
    .replace(/kh/g, 'h')
    .replace(/ou|oo/g, 'u')
    .replace(/ee|ie(?=\b|$)/g, 'i')
    .replace(/ph/g, 'f')
    .replace(/w/g, 'v')
    .replace(/q/g, 'k')
    .replace(/y(?![aeiou])/g, 'i')
    .replace(/(.)\1+/g, '$1');
}
