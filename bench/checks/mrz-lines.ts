/**
 * Builds valid machine-readable zones (ICAO 9303 TD1, TD2, TD3) from fields, for the synthetic documents
 * of the tests and the evaluation. The check digits are computed here independently of the `mrz` package
 * the reader uses, so a bug in one does not hide in the other.
 */
import type { MrzFields, MrzFormat } from '../../src/checks/check-providers';
import { rng } from '../../src/sanctions/eval/perturb';

const WEIGHTS = [7, 3, 1];

function charValue(c: string): number {
  if (c === '<') return 0;
  if (c >= '0' && c <= '9') return c.charCodeAt(0) - 48;
  return c.charCodeAt(0) - 55; // A = 10
}

export function checkDigit(s: string): string {
  let sum = 0;
  for (let i = 0; i < s.length; i++) sum += charValue(s[i]) * WEIGHTS[i % 3];
  return String(sum % 10);
}

const pad = (s: string, n: number) => (s + '<'.repeat(n)).slice(0, n);
const yymmdd = (iso: string) => iso.slice(2, 4) + iso.slice(5, 7) + iso.slice(8, 10);
const nameField = (f: MrzFields, n: number) => pad(`${f.surname.replace(/ /g, '<')}<<${f.givenNames.replace(/ /g, '<')}`, n);

export const MRZ_SHAPE: Record<MrzFormat, { lines: number; length: number }> = {
  TD1: { lines: 3, length: 30 },
  TD2: { lines: 2, length: 36 },
  TD3: { lines: 2, length: 44 },
};

export function buildMrz(f: MrzFields): string[] {
  const num = pad(f.documentNumber, 9);
  const state = pad(f.issuingState, 3);
  const nat = pad(f.nationality, 3);
  const dob = yymmdd(f.dateOfBirth);
  const exp = yymmdd(f.expiryDate);
  const sex = f.sex === 'X' ? '<' : f.sex;
  const docType = pad(f.documentType, 2);
  switch (f.format) {
    case 'TD3': {
      const personal = pad('', 14);
      const l2core = `${num}${checkDigit(num)}${nat}${dob}${checkDigit(dob)}${sex}${exp}${checkDigit(exp)}${personal}${checkDigit(personal)}`;
      const composite = checkDigit(`${num}${checkDigit(num)}${dob}${checkDigit(dob)}${exp}${checkDigit(exp)}${personal}${checkDigit(personal)}`);
      return [`${docType}${state}${nameField(f, 39)}`, `${l2core}${composite}`];
    }
    case 'TD2': {
      const optional = pad('', 7);
      const composite = checkDigit(`${num}${checkDigit(num)}${dob}${checkDigit(dob)}${exp}${checkDigit(exp)}${optional}`);
      return [`${docType}${state}${nameField(f, 31)}`, `${num}${checkDigit(num)}${nat}${dob}${checkDigit(dob)}${sex}${exp}${checkDigit(exp)}${optional}${composite}`];
    }
    case 'TD1': {
      const opt1 = pad('', 15);
      const opt2 = pad('', 11);
      const l1 = `${docType}${state}${num}${checkDigit(num)}${opt1}`;
      const l2part = `${dob}${checkDigit(dob)}${sex}${exp}${checkDigit(exp)}${nat}${opt2}`;
      const composite = checkDigit(`${num}${checkDigit(num)}${opt1}${dob}${checkDigit(dob)}${exp}${checkDigit(exp)}${opt2}`);
      return [l1, `${l2part}${composite}`, nameField(f, 30)];
    }
  }
}

/** A deterministic pseudo-random generator (mulberry32, shared with the sanctions evaluation), so a seed names a data set. */
export const seededRandom = rng;

const SURNAMES = ['ERIKSSON', 'MUSTERMANN', 'DUPONT', 'ROSSI', 'NOWAK', 'OKAFOR', 'TANAKA', 'SILVA', 'VAN DER BERG', 'OBRIEN', 'KOWALSKA', 'HAMALAINEN'];
const GIVEN = ['ANNA MARIA', 'ERIKA', 'JEAN', 'LUCA', 'PIOTR', 'CHIDI', 'YUKI', 'JOAO PEDRO', 'SANNE', 'AOIFE', 'ZOFIA', 'MIKKO'];
/** ICAO codes; Germany's is `D`, printed `D<<`. */
const STATES = ['D', 'FRA', 'ITA', 'POL', 'NGA', 'JPN', 'BRA', 'NLD', 'IRL', 'FIN', 'SWE', 'GBR'];
const ALNUM = 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789';

/** Random but valid fields of a given format; `expired` puts the expiry in the past of `now`. */
export function randomFields(rand: () => number, format: MrzFormat, now: Date, expired = false): MrzFields {
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
  const date = (from: number, to: number) => new Date(from + rand() * (to - from)).toISOString().slice(0, 10);
  const year = 365.25 * 24 * 3600 * 1000;
  const t = now.getTime();
  const state = pick(STATES);
  const documentType = format === 'TD3' ? 'P' : pick(['I', 'ID', 'AC']);
  return {
    format,
    // A 2x36 zone starting `IDFRA` is France's national identity card (1988-2021), not a TD2: parsers
    // (and the `mrz` package) read it by that layout, so the set never prints such a TD2.
    documentType: format === 'TD2' && state === 'FRA' && documentType === 'ID' ? 'I' : documentType,
    issuingState: state,
    documentNumber: Array.from({ length: 9 }, () => pick(ALNUM.split(''))).join(''),
    surname: pick(SURNAMES),
    givenNames: pick(GIVEN),
    nationality: state,
    dateOfBirth: date(t - 80 * year, t - 18 * year),
    sex: pick(['M', 'F', 'X'] as const),
    expiryDate: expired ? date(t - 5 * year, t - 30 * 24 * 3600 * 1000) : date(t + 0.2 * year, t + 9.5 * year),
  };
}
