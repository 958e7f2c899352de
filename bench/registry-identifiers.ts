/** Identifiers that pass their checksums, made up for the registry benchmarks (none names a real company). */

/** The p-th percentile (0-100) of `xs`, nearest rank. */
export const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];

/** An LEI (ISO 17442): 18 characters, then the two MOD 97-10 check digits. */
export function lei(base18: string): string {
  const n = BigInt([...`${base18}00`].map((c) => parseInt(c, 36).toString()).join(''));
  return `${base18}${String(98n - (n % 97n)).padStart(2, '0')}`;
}

/** An ABN (11 digits) that passes the official mod-89 rule, the i-th of a made-up series (a thousand numbers apart, so two never meet). */
export function abn(i: number): string {
  const w = [10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19];
  for (let k = 0; ; k++) {
    const a = `5${String(i * 1000 + k).padStart(10, '0')}`;
    const d = [...a].map(Number);
    d[0] -= 1;
    if (d.reduce((s, x, j) => s + x * w[j], 0) % 89 === 0) return a;
  }
}
