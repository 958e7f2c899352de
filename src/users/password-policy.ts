import { hasUnstorableCharacters } from '../validation/postgres-text';

/** NIST SP 800-63B 5.1.1.2: at least 8 characters, a generous maximum, no composition rules. */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 200;

/**
 * The common and breached passwords refused at sign-up and on every change: the ~49,000 of
 * @zxcvbn-ts/language-common (MIT, maintained with zxcvbn-ts; drawn from breach corpora), shipped
 * in the package and held in memory, so no password leaves the process. Compared case-insensitively.
 * Made on the first password checked, not at every start (docs/benchmarks.md, "Server start-up").
 */
let common: Set<string> | undefined;
function commonPasswords(): Set<string> {
  if (!common) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { dictionary } = require('@zxcvbn-ts/language-common') as typeof import('@zxcvbn-ts/language-common');
    common = new Set(dictionary['passwords-common'].map((p) => p.toLowerCase()));
  }
  return common;
}

export type PasswordProblem = 'length' | 'common' | 'characters';

/** What is wrong with a new password, or null. Length counts code points, as a person does. */
export function passwordProblem(password: string): PasswordProblem | null {
  if (hasUnstorableCharacters(password)) return 'characters';
  const length = [...password].length;
  if (length < PASSWORD_MIN || length > PASSWORD_MAX) return 'length';
  if (commonPasswords().has(password.toLowerCase())) return 'common';
  return null;
}

export const PASSWORD_PROBLEM_MESSAGES: Record<PasswordProblem, string> = {
  length: `A password is ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`,
  common: 'This password is on a list of common or breached passwords; choose another',
  characters: 'A password cannot contain a NUL character or an unpaired UTF-16 surrogate',
};
