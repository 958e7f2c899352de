/**
 * HELD-OUT EVALUATION ONLY: the documents of the held-out MRZ set (docs/checks.md "Held-out evaluation").
 * This generator is kept apart from the one the reader was tuned on (bench/checks/mrz-lines.ts,
 * synthetic-document.ts) and is never used to tune it: no threshold, preprocessing or rule of the reader
 * may be chosen by looking at these documents' readings. Its own names (long, short, compound, names that
 * fill the field, diacritics transliterated per ICAO 9303 part 3), states, document codes, number patterns,
 * optional data, TD2, and invalid documents; its own pages, fonts and renderers (heldout-page.ts) and
 * camera effects (camera.ts). Seeded: HELDOUT_SEED names the set; EVAL_NOW fixes its dates.
 */
import { parse } from 'mrz';
import type { MrzFields, MrzFormat } from '../../../src/checks/check-providers';
import { checkDigit, seededRandom } from '../mrz-lines';
import { nameField, namesOfField } from './icao-names';

export const HELDOUT_SEED = 9303_2026;

export type HeldoutKind = 'clean' | 'degraded' | 'invalid';
export type InvalidKind = 'check-digit' | 'expired' | 'composite';
export type Renderer = 'skia-svg' | 'resvg';
export type MrzFont = 'OCRB-debian' | 'OCRB-sharp-debian' | 'OCRB7-bwip';
export type Weight = 'thin' | 'regular' | 'bold';

export const EFFECTS = [
  'rotation',
  'perspective',
  'brightness-gradient',
  'glare',
  'blur',
  'noise',
  'downscale',
  'jpeg-heavy',
  'motion-blur',
  'rolling-shutter',
  'moire',
  'white-balance',
  'shadow',
  'partial-crop',
] as const;
export type Effect = (typeof EFFECTS)[number];

export type HeldoutDocument = {
  index: number;
  kind: HeldoutKind;
  invalid?: InvalidKind;
  format: MrzFormat;
  /** The zone printed. */
  lines: string[];
  /** The fields of the zone printed: what a reader must return. */
  fields: MrzFields;
  /** Names as a person would write them, before transliteration (for the report). */
  names: { surname: string; givenNames: string; truncated: boolean };
  font: MrzFont;
  weight: Weight;
  renderer: Renderer;
  effects: Effect[];
  /** Seed of the page design and the photo. */
  seed: number;
};

// Names as written in their own language; the set prints them transliterated (icao-names.ts).
const SURNAMES = [
  'MÜLLER-LÜDENSCHEIDT', 'GARCÍA MÁRQUEZ', 'ØSTERGÅRD', "O'SULLIVAN", 'ŁUKASZEWICZ-WÓJCIK', 'ÞÓRSDÓTTIR', 'ÇELİK',
  'DE LA CRUZ FERNÁNDEZ DE CÓRDOBA', 'WOLFESCHLEGELSTEINHAUSENBERGERDORFF', 'NGUYỄN', 'LI', 'NG', 'WU', 'SØRENSEN',
  'DVOŘÁK', 'KRÓLIKOWSKA', 'PAPADOPOULOU', 'LEFEBVRE', 'BJÖRNSSON', 'HÄMÄLÄINEN-STRÖM', "D'ANGELO", 'SCHÖNBERGER',
  'VAN DEN HEUVEL-DIJKSTRA', 'AL-HASHIMI', 'YILDIRIM', 'KOVAČEVIĆ', 'FERREIRA DOS SANTOS', 'BOUCHARD', 'QUISPE MAMANI',
  'OYELARAN-ADEBAYO', 'MCALLISTER', 'ZIELIŃSKI', 'ÅBERG', 'ÆRØBOE', 'GUÐMUNDSDÓTTIR', 'HERNÁNDEZ Y LÓPEZ',
];
const GIVEN = [
  'JOSÉ MARÍA', 'FRANÇOIS XAVIER', 'ZOË', 'ÅSA', 'JÜRGEN', 'MAŁGORZATA', 'SIGRÍÐUR', 'BO', 'AI', 'ANH', 'MARIE-CLAIRE',
  'ŽELJKO', 'KRZYSZTOF', 'GUÐMUNDUR', 'MARÍA DE LOS ÁNGELES', 'CHRISTOPHER ALEXANDER JONATHAN', 'ØYVIND', 'IOANA',
  'SEÁN', 'NIAMH', 'OLUWASEUN', 'ÉLODIE', 'HÅKON', 'FERNÃO', 'QUENTIN', 'XIMENA', 'VÍTĚZSLAV', 'ŞULE', 'YEVGENIYA',
  'ANNE-SOPHIE GENEVIÈVE', 'J', 'KAI', 'LEIF ERIK', '',
];
const STATES = ['AUT', 'BEL', 'CHE', 'CZE', 'DNK', 'ESP', 'GRC', 'HUN', 'ISL', 'NOR', 'PRT', 'ROU', 'TUR', 'VNM', 'USA', 'CAN', 'MEX', 'AUS', 'IND', 'KOR', 'D'];
const CODES: Record<MrzFormat, string[]> = { TD1: ['I<', 'ID', 'IR', 'AC', 'C<'], TD2: ['I<', 'IR', 'AC', 'ID'], TD3: ['P<', 'P<', 'P<', 'PD', 'PS'] };
const DIGITS = '0123456789';
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

const pad = (s: string, n: number) => (s + '<'.repeat(n)).slice(0, n);
const yymmdd = (iso: string) => iso.slice(2, 4) + iso.slice(5, 7) + iso.slice(8, 10);

function documentNumber(rand: () => number): string {
  const pick = (set: string, n: number) => Array.from({ length: n }, () => set[Math.floor(rand() * set.length)]).join('');
  const r = rand();
  if (r < 0.25) return pick(DIGITS, 9);
  if (r < 0.45) return pick('CFGHJKLMNPRTVWXYZ', 1) + pick('CFGHJKLMNPRTVWXYZ0123456789', 8); // German-style alphabet
  if (r < 0.65) return pick(LETTERS, 2) + pick(DIGITS, 7);
  if (r < 0.8) return pick(LETTERS + DIGITS, 8); // 8 characters: the field ends with a filler
  return pick(LETTERS + DIGITS, 9);
}

/** Optional data: empty, or a personal or file number as some states print it. */
const optional = (rand: () => number, n: number) => (rand() < 0.5 ? '' : Array.from({ length: Math.min(n, 6 + Math.floor(rand() * (n - 5))) }, () => (rand() < 0.8 ? DIGITS : LETTERS)[Math.floor(rand() * 10)]).join(''));

function buildZone(f: { format: MrzFormat; code: string; state: string; nationality: string; number: string; name: string; dob: string; sex: string; expiry: string; opt1: string; opt2: string }): string[] {
  const num = pad(f.number, 9);
  const dob = yymmdd(f.dob);
  const exp = yymmdd(f.expiry);
  const cd = checkDigit;
  const state = pad(f.state, 3);
  const nat = pad(f.nationality, 3);
  switch (f.format) {
    case 'TD3': {
      const personal = pad(f.opt1, 14);
      const personalCd = f.opt1 ? cd(personal) : '<';
      const composite = cd(`${num}${cd(num)}${dob}${cd(dob)}${exp}${cd(exp)}${personal}${personalCd}`);
      return [`${f.code}${state}${f.name}`, `${num}${cd(num)}${nat}${dob}${cd(dob)}${f.sex}${exp}${cd(exp)}${personal}${personalCd}${composite}`];
    }
    case 'TD2': {
      const opt = pad(f.opt1, 7);
      const composite = cd(`${num}${cd(num)}${dob}${cd(dob)}${exp}${cd(exp)}${opt}`);
      return [`${f.code}${state}${f.name}`, `${num}${cd(num)}${nat}${dob}${cd(dob)}${f.sex}${exp}${cd(exp)}${opt}${composite}`];
    }
    case 'TD1': {
      const o1 = pad(f.opt1, 15);
      const o2 = pad(f.opt2, 11);
      const composite = cd(`${num}${cd(num)}${o1}${dob}${cd(dob)}${exp}${cd(exp)}${o2}`);
      return [`${f.code}${state}${num}${cd(num)}${o1}`, `${dob}${cd(dob)}${f.sex}${exp}${cd(exp)}${nat}${o2}${composite}`, f.name];
    }
  }
}

/** Where each check digit sits: [line, column] (TD3 and TD2 second line; TD1 first and second). */
const CHECK_DIGITS: Record<MrzFormat, { document: [number, number]; birth: [number, number]; expiry: [number, number]; composite: [number, number] }> = {
  TD3: { document: [1, 9], birth: [1, 19], expiry: [1, 27], composite: [1, 43] },
  TD2: { document: [1, 9], birth: [1, 19], expiry: [1, 27], composite: [1, 35] },
  TD1: { document: [0, 14], birth: [1, 6], expiry: [1, 14], composite: [1, 29] },
};

const replaceAt = (lines: string[], [line, col]: [number, number], by: string) => lines.map((l, i) => (i === line ? l.slice(0, col) + by + l.slice(col + 1) : l));
const otherDigit = (d: string, rand: () => number) => String((Number(d) + 1 + Math.floor(rand() * 9)) % 10);

/** The fields a reader must return for a zone: what the zone says, checked against what was meant to be printed. */
function fieldsOf(format: MrzFormat, lines: string[], meant: Omit<MrzFields, 'format'>, now: Date): MrzFields {
  const names = namesOfField(format === 'TD1' ? lines[2] : lines[0].slice(5));
  const fields: MrzFields = { format, ...meant, ...names };
  const parsed = parse(lines, { autocorrect: false }).fields;
  // The generator's own view of the zone must be the parser's, or the set would score the reader against a bug.
  const parsedNames = { surname: parsed.lastName ?? '', givenNames: parsed.firstName ?? '' };
  if (parsedNames.surname !== names.surname || parsedNames.givenNames !== names.givenNames || parsed.documentNumber !== meant.documentNumber)
    throw new Error(`held-out generator and parser disagree on ${lines.join('|')}: ${JSON.stringify({ parsedNames, names, n: parsed.documentNumber })} at ${now.toISOString()}`);
  return fields;
}

/**
 * The held-out documents, in order: clean, degraded, invalid; each format in turn. Sizes per format:
 * `clean`, `degraded`, `invalid` (default 12, 30, 6: 144 documents).
 */
export function heldoutDocuments(now: Date, sizes = { clean: 12, degraded: 30, invalid: 6 }, seed = HELDOUT_SEED): HeldoutDocument[] {
  const rand = seededRandom(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  const day = 24 * 3600 * 1000;
  const date = (from: number, to: number) => new Date(now.getTime() + (from + rand() * (to - from)) * day).toISOString().slice(0, 10);
  const docs: HeldoutDocument[] = [];
  for (const kind of ['clean', 'degraded', 'invalid'] as const)
    for (const format of ['TD1', 'TD2', 'TD3'] as const)
      for (let i = 0; i < sizes[kind]; i++) {
        const invalid: InvalidKind | undefined = kind === 'invalid' ? (['check-digit', 'expired', 'composite'] as const)[i % 3] : undefined;
        const state = pick(STATES);
        let code = pick(CODES[format]);
        if (format === 'TD2' && state === 'FRA' && code === 'ID') code = 'I<';
        const nationality = rand() < 0.8 ? state : pick(STATES);
        const surname = pick(SURNAMES);
        const givenNames = pick(GIVEN);
        const width = format === 'TD1' ? 30 : format === 'TD2' ? 31 : 39;
        const { field, truncated } = nameField(surname, givenNames, width);
        const number = documentNumber(rand);
        const dob = date(-85 * 365, -16 * 365);
        const expiry = invalid === 'expired' ? date(-4 * 365, -1) : date(20, 10 * 365);
        const sex = pick(['M', 'F', '<']);
        const opt1 = optional(rand, format === 'TD1' ? 15 : format === 'TD2' ? 7 : 14);
        const opt2 = format === 'TD1' ? optional(rand, 11) : '';
        let lines = buildZone({ format, code, state, nationality, number, name: field, dob, sex, expiry, opt1, opt2 });
        const valid = parse(lines);
        if (!valid.valid) throw new Error(`held-out generator built an invalid zone ${lines.join('|')}: ${valid.details.filter((d) => !d.valid).map((d) => d.error).join('; ')}`);
        const fields = fieldsOf(format, lines, {
          documentType: code.replace(/<$/, ''),
          issuingState: state,
          documentNumber: number,
          surname: '',
          givenNames: '',
          nationality,
          dateOfBirth: dob,
          sex: sex === '<' ? 'X' : (sex as 'M' | 'F'),
          expiryDate: expiry,
        }, now);
        if (invalid === 'check-digit') {
          const which = pick(['document', 'birth', 'expiry'] as const);
          const at = CHECK_DIGITS[format][which];
          lines = replaceAt(lines, at, otherDigit(lines[at[0]][at[1]], rand));
        } else if (invalid === 'composite') {
          const at = CHECK_DIGITS[format].composite;
          lines = replaceAt(lines, at, otherDigit(lines[at[0]][at[1]], rand));
        }
        const effects: Effect[] = [];
        if (kind === 'degraded') {
          const count = 2 + Math.floor(rand() * 3);
          while (effects.length < count) {
            const e = pick(EFFECTS);
            if (!effects.includes(e)) effects.push(e);
          }
        } else if (kind === 'invalid') effects.push(pick(EFFECTS));
        docs.push({
          index: docs.length,
          kind,
          ...(invalid ? { invalid } : {}),
          format,
          lines,
          fields,
          names: { surname, givenNames, truncated },
          font: pick(['OCRB-debian', 'OCRB-sharp-debian', 'OCRB7-bwip'] as const),
          weight: pick(['thin', 'regular', 'regular', 'bold'] as const),
          renderer: pick(['skia-svg', 'resvg'] as const),
          effects,
          seed: Math.floor(rand() * 2 ** 31),
        });
      }
  return docs;
}
