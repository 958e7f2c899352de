/**
 * How much an OCR reading of a candidate zone looks like a machine-readable zone, 0 (not at all) to 1: at
 * least two lines of the MRZ alphabet, as many of them as their length calls for (three of about 30
 * characters, or two of about 36 or 44), with filler `<` among them. Two lines about 30 long are two lines
 * of a TD1 (the third was not in the candidate): not a whole MRZ. Only chooses which candidate zone to
 * read: what passes is decided by the check digits alone.
 */
export function mrzLikeness(text: string): number {
  const lines = text
    .split('\n')
    .map((l) => l.toUpperCase().replace(/[^A-Z0-9<?]/g, ''))
    .filter((l) => l.length >= 10);
  if (lines.length < 2 || lines.length > 4) return 0;
  const fillers = lines.reduce((n, l) => n + (l.match(/</g)?.length ?? 0), 0);
  if (fillers < 3) return 0;
  const longest = Math.max(...lines.map((l) => l.length));
  const full = lines.filter((l) => l.length >= 20).length;
  if (longest >= 26 && longest <= 33) return lines.length >= 3 ? (full >= 3 ? 1 : 0.6) : 0.2;
  if (longest > 33 && longest <= 49) return full >= 2 ? 1 : 0.5;
  return 0.1;
}

/** A reading that looks like a whole MRZ (`mrzLikeness` of at least 0.6). */
export const looksLikeMrz = (text: string) => mrzLikeness(text) >= 0.6;
