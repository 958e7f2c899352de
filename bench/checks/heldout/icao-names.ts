/**
 * HELD-OUT EVALUATION ONLY (docs/checks.md "Held-out evaluation"): never used to tune the MRZ reader.
 *
 * The name field of an MRZ as ICAO 9303 part 3 writes it: national characters transliterated by the
 * recommended table (section 6, "Transliteration of multinational Latin-based characters": Ä -> AE,
 * Å -> AA, Ø -> OE, ß -> SS, Þ -> TH, Ñ -> N ...), spaces and hyphens as the filler `<`, apostrophes and
 * other punctuation left out, primary and secondary identifiers separated by `<<`, and a name too long
 * for the field truncated (secondary identifiers first, from the end; the field then ends in a letter).
 */

/** ICAO 9303 part 3, table of recommended transliterations (the Latin characters used by the set). */
const ICAO_LATIN: Record<string, string> = {
  Á: 'A', À: 'A', Â: 'A', Ä: 'AE', Ã: 'A', Ă: 'A', Å: 'AA', Ā: 'A', Ą: 'A', Æ: 'AE',
  Ć: 'C', Ĉ: 'C', Č: 'C', Ċ: 'C', Ç: 'C',
  Ď: 'D', Ð: 'D', Đ: 'D',
  É: 'E', È: 'E', Ê: 'E', Ë: 'E', Ě: 'E', Ė: 'E', Ē: 'E', Ę: 'E',
  Ĝ: 'G', Ğ: 'G', Ġ: 'G', Ģ: 'G', Ĥ: 'H', Ħ: 'H',
  İ: 'I', Í: 'I', Ì: 'I', Î: 'I', Ï: 'I', Ī: 'I', Į: 'I', Ĩ: 'I', Ĳ: 'IJ', Ĵ: 'J', Ķ: 'K',
  Ĺ: 'L', Ľ: 'L', Ļ: 'L', Ł: 'L', Ŀ: 'L',
  Ń: 'N', Ñ: 'N', Ň: 'N', Ņ: 'N', Ŋ: 'N',
  Ó: 'O', Ò: 'O', Ô: 'O', Ö: 'OE', Õ: 'O', Ő: 'O', Ø: 'OE', Ō: 'O', Œ: 'OE',
  Ŕ: 'R', Ř: 'R', Ŗ: 'R', Ś: 'S', Ŝ: 'S', Š: 'S', Ş: 'S', ẞ: 'SS', Ť: 'T', Ţ: 'T', Þ: 'TH', Ŧ: 'T',
  Ú: 'U', Ù: 'U', Û: 'U', Ü: 'UE', Ŭ: 'U', Ű: 'U', Ů: 'U', Ū: 'U', Ų: 'U', Ũ: 'U',
  Ŵ: 'W', Ý: 'Y', Ŷ: 'Y', Ÿ: 'Y', Ź: 'Z', Ž: 'Z', Ż: 'Z',
};

/** One name in MRZ characters: upper case, transliterated, spaces and hyphens as `<`, other marks dropped. */
export function transliterate(name: string): string {
  let out = '';
  for (const ch of name.replace(/ß/g, 'SS').toUpperCase()) {
    if (/[A-Z]/.test(ch)) out += ch;
    else if (ICAO_LATIN[ch]) out += ICAO_LATIN[ch];
    else if (ch === ' ' || ch === '-') out += '<';
    else {
      // Characters outside the table (Vietnamese stacked marks: Ễ) lose their marks, as 9303 advises.
      const base = ch.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
      if (/^[A-Z]$/.test(base)) out += base;
    }
  }
  return out.replace(/<+/g, '<').replace(/^<|<$/g, '');
}

/**
 * The name field of `length` characters. Too long a name is truncated: the secondary identifier loses
 * characters from its end (down to one), then the primary; a truncated field ends in a letter.
 */
export function nameField(surname: string, givenNames: string, length: number): { field: string; truncated: boolean } {
  let primary = transliterate(surname);
  let secondary = transliterate(givenNames);
  const join = () => (secondary ? `${primary}<<${secondary}` : primary);
  let truncated = false;
  while (join().length > length) {
    truncated = true;
    if (secondary.length > 1) secondary = secondary.slice(0, -1).replace(/<+$/, '');
    else primary = primary.slice(0, -1).replace(/<+$/, '');
  }
  return { field: (join() + '<'.repeat(length)).slice(0, length), truncated };
}

/** The surname and given names a reader finds in a name field (`<` as a space), i.e. the truth of the set. */
export function namesOfField(field: string): { surname: string; givenNames: string } {
  const [primary, ...rest] = field.split('<<');
  const secondary = rest.join('<<');
  const words = (s: string) => s.replace(/<+$/, '').replace(/</g, ' ').trim();
  return { surname: words(primary), givenNames: words(secondary) };
}
