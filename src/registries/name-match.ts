/**
 * Legal-name comparison for the registry checks (docs/checks.md, "Business registries"): casefold,
 * `&` as "and", punctuation dropped, legal suffixes stripped (LTD, PLC, INC, PTY LTD, GMBH, ...), then
 * the Levenshtein similarity of the sorted words, so word order and a small typo do not matter but an
 * extra or missing word does ("SHELL" is not "SHELL TRADING").
 */
const SUFFIXES = [
  'public limited company',
  'proprietary limited',
  'pty ltd',
  'pty limited',
  'limited liability company',
  'limited',
  'ltd',
  'plc',
  'incorporated',
  'inc',
  'llc',
  'llp',
  'lp',
  'corporation',
  'corp',
  'company',
  'co',
  'pty',
  'ag',
  'se',
  'gmbh',
  'sa',
  'nv',
  'bv',
].map((s) => s.split(' '));

/** Words of a name as compared: lower case, `&` -> and, no punctuation, no leading "the", no trailing legal suffixes. */
export function nameWords(name: string): string[] {
  let words = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/\b([a-z])\.(?=[a-z]\.)/g, '$1') // L.L.C. -> llc
    .replace(/[^a-z0-9 ]+/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
  if (words[0] === 'the' && words.length > 1) words = words.slice(1);
  for (let stripped = true; stripped && words.length > 1; ) {
    stripped = false;
    for (const s of SUFFIXES) {
      if (words.length > s.length && s.every((w, i) => words[words.length - s.length + i] === w)) {
        words = words.slice(0, words.length - s.length);
        stripped = true;
        break;
      }
    }
  }
  return words;
}

/** 0..1: 1 is the same name once normalized. */
export function nameSimilarity(a: string, b: string): number {
  const x = [...nameWords(a)].sort().join(' ');
  const y = [...nameWords(b)].sort().join(' ');
  if (!x || !y) return 0;
  if (x === y) return 1;
  return 1 - levenshtein(x, y) / Math.max(x.length, y.length);
}

/** The threshold above which two names are the same company's. */
export const NAME_MATCH_THRESHOLD = 0.9;

function levenshtein(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}
