/** Deterministic perturbations shared by the evaluation-set builder and the benchmark. */

export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];

/** One keyboard-style typo (substitute, transpose, drop or double a letter) away from the ends. */
export function typo(r: () => number, word: string): string {
  if (word.length < 5) return word;
  const i = 1 + Math.floor(r() * (word.length - 2));
  const kind = Math.floor(r() * 4);
  const letters = 'aeioumnrstlkdh';
  if (kind === 0) return word.slice(0, i) + pick(r, [...letters].filter((c) => c !== word[i].toLowerCase())) + word.slice(i + 1);
  if (kind === 1 && i + 1 < word.length) return word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
  if (kind === 2) return word.slice(0, i) + word.slice(i + 1);
  return word.slice(0, i) + word[i] + word.slice(i);
}

const TO_CYRILLIC: [string, string][] = [
  ['shch', 'щ'], ['kh', 'х'], ['sh', 'ш'], ['ch', 'ч'], ['zh', 'ж'], ['ts', 'ц'], ['ya', 'я'], ['yu', 'ю'],
  ['a', 'а'], ['b', 'б'], ['v', 'в'], ['w', 'в'], ['g', 'г'], ['d', 'д'], ['e', 'е'], ['z', 'з'], ['i', 'и'], ['y', 'й'],
  ['k', 'к'], ['q', 'к'], ['c', 'к'], ['l', 'л'], ['m', 'м'], ['n', 'н'], ['o', 'о'], ['p', 'п'], ['r', 'р'], ['s', 'с'],
  ['t', 'т'], ['u', 'у'], ['f', 'ф'], ['h', 'х'], ['j', 'дж'], ['x', 'кс'],
];
const TO_GREEK: [string, string][] = [
  ['th', 'θ'], ['ch', 'χ'], ['ps', 'ψ'], ['ou', 'ου'], ['a', 'α'], ['b', 'μπ'], ['v', 'β'], ['g', 'γ'], ['d', 'δ'], ['e', 'ε'],
  ['z', 'ζ'], ['i', 'ι'], ['k', 'κ'], ['c', 'κ'], ['q', 'κ'], ['l', 'λ'], ['m', 'μ'], ['n', 'ν'], ['x', 'ξ'], ['o', 'ο'],
  ['p', 'π'], ['r', 'ρ'], ['s', 'σ'], ['t', 'τ'], ['y', 'υ'], ['u', 'ου'], ['f', 'φ'], ['h', 'χ'], ['w', 'β'], ['j', 'τζ'],
];

function rewrite(table: [string, string][], text: string): string {
  let out = '';
  const s = text.toLowerCase();
  for (let i = 0; i < s.length; ) {
    const hit = table.find(([from]) => s.startsWith(from, i));
    if (hit) {
      out += hit[1];
      i += hit[0].length;
    } else {
      out += s[i];
      i++;
    }
  }
  return out.replace(/σ(?=\s|$)/g, 'ς');
}

/** How a Russian or Greek clerk might write a Latin-script name. */
export const toCyrillic = (text: string): string => rewrite(TO_CYRILLIC, text);
export const toGreek = (text: string): string => rewrite(TO_GREEK, text);

/** Accents a Latin name the way a European form might ("Jose" -> "José"). */
export function accent(r: () => number, text: string): string {
  const marks: Record<string, string[]> = { a: ['á', 'à', 'â', 'ä'], e: ['é', 'è', 'ê'], i: ['í', 'ï'], o: ['ó', 'ö', 'ô'], u: ['ú', 'ü'], c: ['ç'], n: ['ñ'] };
  return [...text].map((c) => (marks[c] && r() < 0.35 ? pick(r, marks[c]) : c)).join('');
}
