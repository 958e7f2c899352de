import { randomInt, timingSafeEqual } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { SecretBox } from '../crypto/secret-box';
import { newId } from '../ids';
import type { MailOutbox } from '../mail/mail-outbox';
import { updatedRows } from '../db/updated-rows';
import { hashPassword } from './password-hash';
import { passwordProblem, type PasswordProblem } from './password-policy';
import { type User, type UserService } from './user.service';
import { isEmail, normaliseEmail } from '../mail/email-address';

export const CODE_TTL_MS = 10 * 60_000;
const CODE_MAX_ATTEMPTS = 5;
/** Failed sign-ins allowed per sliding 15 minutes: per account, and per client address (docs/accounts-and-oidc.md, "Sign-in limits"). */
export const FAILURES_PER_ACCOUNT = 5;
export const FAILURES_PER_ADDRESS = 30;
const FAILURE_WINDOW = '15 minutes';

export type MailText = { codeSubject: string; codeText: string; existsSubject: string; existsText: string };
/**
 * `code_required`: sign-in is throttled for this account or address, so a password alone does not
 * sign in; the code page follows whatever the password was, and a code is mailed only when it was right.
 */
export type SignInOutcome = { kind: 'signed_in'; user: User } | { kind: 'code_sent'; email: string } | { kind: 'code_required'; email: string } | { kind: 'refused' };
export type SignUpOutcome = { kind: 'code_sent'; email: string } | { kind: 'invalid'; problem: 'email' | PasswordProblem };

/**
 * Sign-up, sign-in and email codes (docs/accounts-and-oidc.md). Every refusal looks the same to the
 * caller, whether the account exists or not: one generic message, one scrypt either way, and a
 * sign-up with a known email sends that address a notice instead of a code, behind the same page.
 */
export class SignInService {
  constructor(
    private readonly db: DataSource,
    private readonly box: SecretBox,
    private readonly users: UserService,
    private readonly mail: MailOutbox,
    private readonly codeTtlMs: number = CODE_TTL_MS,
  ) {}

  async signIn(email: string, password: string, address: string, text: MailText): Promise<SignInOutcome> {
    const accountBucket = `acct:${this.users.emailHash(email)}`;
    const addressBucket = `ip:${this.box.hmac(address)}`;
    const attempt = await this.recordAttempt(accountBucket, addressBucket);
    // Outside any transaction: scrypt takes tens of milliseconds, and on the embedded database an open
    // transaction holds every other query of the process.
    const user = await this.users.verifyPassword(email, password);
    // Right: this attempt was no failure after all (it still counted for the guesses beside it).
    if (user) await this.db.query(`DELETE FROM sign_in_failures WHERE id = ANY($1)`, [attempt.ids]);
    // Past the threshold the owner is never locked out (NIST SP 800-63B 5.2.2): the right password
    // and a code mailed to the address sign in. Every attempt gets the same code page, so a guess
    // learns nothing from it; only the right password makes a code.
    if (attempt.limited) {
      if (user) await this.sendCode(user.email, 'sign_in', text);
      // The address as typed (normalised), never the account's: the page must not differ by whether it exists.
      return { kind: 'code_required', email: normaliseEmail(email) };
    }
    if (!user) return { kind: 'refused' };
    if (!user.emailVerified) {
      await this.sendCode(user.email, 'verify', text);
      return { kind: 'code_sent', email: user.email };
    }
    return { kind: 'signed_in', user };
  }

  /**
   * A sign-up never changes an existing account, verified or not: its owner gets a notice at the address,
   * and the caller the same "check your inbox" answer as for a new account. (Replacing an unverified
   * account's password let anyone take it over before its owner verified it.) Every path hashes the
   * password once, so the timing does not tell either; concurrent sign-ups with one address make one
   * account, and each of them gets the same answer.
   */
  async signUp(email: string, password: string, text: MailText): Promise<SignUpOutcome> {
    if (!isEmail(email)) return { kind: 'invalid', problem: 'email' };
    // Checked before the address is looked up: a refused password tells nothing about the account.
    const problem = passwordProblem(password);
    if (problem) return { kind: 'invalid', problem };
    const passwordHash = await hashPassword(password);
    const found = await this.users.findByEmail(email);
    const created = found ? null : await this.users.createWithHash({ email, passwordHash, emailVerified: false });
    // Neither found nor created: a concurrent sign-up inserted it in between, so it exists now.
    const account = found ?? created ?? (await this.users.findByEmail(email));
    if (!account) return { kind: 'invalid', problem: 'email' };
    if (!created) {
      await this.mail.send({ to: account.email, subject: text.existsSubject, text: text.existsText });
      return { kind: 'code_sent', email: account.email };
    }
    await this.sendCode(account.email, 'verify', text);
    return { kind: 'code_sent', email: account.email };
  }

  /** The user whose latest code this is (marking the email proved), or null: wrong, expired, used, or too many tries. */
  async confirmCode(email: string, code: string): Promise<User | null> {
    const emailHash = this.users.emailHash(email);
    const rows = updatedRows<{ id: string; code_hash: string }>(await this.db.query(
      `UPDATE email_codes SET attempts = attempts + 1
        WHERE id = (SELECT id FROM email_codes WHERE email_hash = $1 AND consumed_at IS NULL ORDER BY created_at DESC LIMIT 1)
          AND expires_at > now() AND attempts < $2
        RETURNING id, code_hash`,
      [emailHash, CODE_MAX_ATTEMPTS],
    ));
    if (!rows.length) return null;
    const expected = Buffer.from(rows[0].code_hash, 'hex');
    const given = Buffer.from(this.codeHash(rows[0].id, code.replace(/\s+/g, '')), 'hex');
    if (!timingSafeEqual(expected, given)) return null;
    await this.db.query(`UPDATE email_codes SET consumed_at = now() WHERE id = $1`, [rows[0].id]);
    const user = await this.users.findByEmail(email);
    if (!user) return null;
    if (!user.emailVerified) await this.db.query(`UPDATE users SET email_verified = true, updated_at = now() WHERE id = $1`, [user.id]);
    return { ...user, emailVerified: true };
  }

  private async sendCode(email: string, purpose: string, text: MailText): Promise<void> {
    const id = newId('evt').replace(/^evt_/, 'code_');
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    await this.db.query(`INSERT INTO email_codes (id, email_hash, code_hash, purpose, expires_at) VALUES ($1, $2, $3, $4, $5)`, [
      id,
      this.users.emailHash(email),
      this.codeHash(id, code),
      purpose,
      new Date(Date.now() + this.codeTtlMs),
    ]);
    await this.mail.send({ to: email, subject: text.codeSubject.replace('{code}', code), text: text.codeText.replace('{code}', code) });
  }

  private codeHash(id: string, code: string): string {
    return this.box.hmac(`code:${id}:${code}`);
  }

  /**
   * Counts the window's failures and records this attempt as a failure of both buckets, as one step
   * per bucket (issue 40, the class of finding 6): a lock per bucket, taken in one order so two
   * attempts never wait on each other crosswise, is held from the count to the insert, so concurrent
   * guesses queue and each counts the ones before it. Counting first and recording after the password
   * check let every concurrent guess read the count before any was written: 40 at once were all
   * refused plainly where the limit is 5. The caller deletes the rows by id when the password was right.
   */
  private async recordAttempt(accountBucket: string, addressBucket: string): Promise<{ limited: boolean; ids: string[] }> {
    return this.db.transaction(async (m) => {
      for (const bucket of [accountBucket, addressBucket].sort()) await m.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [bucket]);
      const rows: { bucket: string; n: string }[] = await m.query(
        `SELECT bucket, count(*) AS n FROM sign_in_failures WHERE bucket = ANY($1) AND at > now() - interval '${FAILURE_WINDOW}' GROUP BY bucket`,
        [[accountBucket, addressBucket]],
      );
      const count = (b: string) => Number(rows.find((r) => r.bucket === b)?.n ?? 0);
      const inserted: { id: string }[] = await m.query(`INSERT INTO sign_in_failures (bucket) VALUES ($1), ($2) RETURNING id`, [accountBucket, addressBucket]);
      return { limited: count(accountBucket) >= FAILURES_PER_ACCOUNT || count(addressBucket) >= FAILURES_PER_ADDRESS, ids: inserted.map((r) => r.id) };
    });
  }
}
