import { randomInt } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import * as OTPAuth from 'otpauth';
import type { DataSource, EntityManager } from 'typeorm';
import type { AuditLogService } from '../audit/audit-log.service';
import type { SecretBox } from '../crypto/secret-box';
import { updatedRows } from '../db/updated-rows';
import { newId } from '../ids';
import { systemClock, type Clock } from '../clock';

/** TOTP per RFC 6238 as authenticator apps expect it: SHA-1, 6 digits, 30 s; one step either side for clock drift. */
const TOTP_PERIOD = 30;
const TOTP_WINDOW = 1;
/** Failed second-factor attempts allowed per user per sliding 15 minutes (docs/console.md, "Second factor"). */
export const SECOND_FACTOR_FAILURES = 5;
const FAILURE_WINDOW = '15 minutes';
export const RECOVERY_CODE_COUNT = 10;
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789'; // no 0/o, 1/l/i: read aloud and typed by people

/**
 * The WebAuthn library, loaded on the first passkey ceremony rather than at start: with its ASN.1 and COSE
 * dependencies it was the largest single load of a server's start (docs/benchmarks.md, "Server start-up").
 */
const webauthn = () => import('@simplewebauthn/server');

export type SecondFactors = { totp: boolean; passkeys: number; recoveryCodesLeft: number; recoveryCodesIssued: boolean };
export type FactorOutcome = 'ok' | 'wrong' | 'rate_limited';
/** The member an enrolment or an attempt is audited with (the tenant whose console the person was signing in to). */
export type EnrollingMember = { tenantId: string; memberId: string };
/** What a factor attempt used (audited as `kind`). */
type AttemptKind = 'totp' | 'totp_enrolment' | 'passkey' | 'recovery_code';

/**
 * The console's second factor (docs/decisions.md D16, docs/console.md): TOTP (otpauth) and passkeys
 * (WebAuthn, @simplewebauthn/server), with single-use recovery codes. It belongs to the user, not to
 * one membership: one person, one set of factors for every tenant's console. The TOTP secret is sealed
 * at rest, a code is accepted once (its time step must be newer than the last one used), recovery
 * codes are stored as keyed hashes, and every failure counts against a per-user limit.
 */
export class SecondFactorService {
  private readonly rpId: string;
  private readonly origin: string;

  constructor(
    private readonly db: DataSource,
    private readonly box: SecretBox,
    private readonly audit: AuditLogService,
    publicBaseUrl: string,
    private readonly issuer = 'Identity Verification',
    private readonly now: Clock = systemClock,
  ) {
    const url = new URL(publicBaseUrl);
    this.rpId = url.hostname;
    this.origin = url.origin;
  }

  async factorsOf(userId: string): Promise<SecondFactors> {
    const [row]: { totp: boolean; passkeys: string; left: string; issued: string }[] = await this.db.query(
      `SELECT EXISTS (SELECT 1 FROM console_totp WHERE user_id = $1 AND confirmed_at IS NOT NULL) AS totp,
              (SELECT count(*) FROM console_passkeys WHERE user_id = $1) AS passkeys,
              (SELECT count(*) FROM console_recovery_codes WHERE user_id = $1 AND used_at IS NULL) AS left,
              (SELECT count(*) FROM console_recovery_codes WHERE user_id = $1) AS issued`,
      [userId],
    );
    return { totp: row.totp, passkeys: Number(row.passkeys), recoveryCodesLeft: Number(row.left), recoveryCodesIssued: Number(row.issued) > 0 };
  }

  hasAny(f: SecondFactors): boolean {
    return f.totp || f.passkeys > 0;
  }

  /**
   * A new TOTP secret for `userId` to add to an app, kept unconfirmed until a code from it comes back;
   * null once the user's secret is confirmed: a confirmed secret is never shown again (issue 40, finding 9).
   */
  async beginTotp(userId: string, label: string): Promise<{ secret: string; uri: string } | null> {
    const secret = new OTPAuth.Secret({ size: 20 });
    await this.db.query(
      `INSERT INTO console_totp (user_id, secret_sealed) VALUES ($1, $2)
       ON CONFLICT (user_id) DO UPDATE SET secret_sealed = EXCLUDED.secret_sealed, last_step = 0, created_at = now() WHERE console_totp.confirmed_at IS NULL`,
      [userId, this.box.seal(secret.base32)],
    );
    const stored = await this.totpOf(userId);
    if (!stored) throw new Error('TOTP secret not stored');
    if (stored.confirmed) return null;
    return { secret: stored.secret.base32, uri: stored.totp(label).toString() };
  }

  /** The unconfirmed secret's first code: confirms it (audited with the member). */
  async confirmTotp(userId: string, code: string, who: EnrollingMember): Promise<FactorOutcome> {
    return this.attempt(userId, who, 'totp_enrolment', async (m) => {
      if (!(await this.totpAccepted(m, userId, code, false))) return false;
      await this.audited(who, 'totp', m);
      return true;
    });
  }

  private async audited(who: EnrollingMember, kind: 'totp' | 'passkey', m?: EntityManager): Promise<void> {
    await this.audit.append({ tenantId: who.tenantId, livemode: true, action: 'member.second_factor_enrolled', subjectId: who.memberId, detail: { member_id: who.memberId, kind } }, m);
  }

  /** A console entry about the member's sign-in (the tenant's live log, never an address or a code). */
  private async consoleEntry(who: EnrollingMember, action: string, detail: Record<string, unknown>, m?: EntityManager): Promise<void> {
    await this.audit.append({ tenantId: who.tenantId, livemode: true, action, subjectId: who.memberId, detail: { member_id: who.memberId, ...detail } }, m);
  }

  async verifyTotp(userId: string, code: string, who: EnrollingMember): Promise<FactorOutcome> {
    return this.attempt(userId, who, 'totp', (m) => this.totpAccepted(m, userId, code, true));
  }

  /** Replaces the user's recovery codes with new ones, returned once in plain text (audited with the member, never the codes). */
  async issueRecoveryCodes(userId: string, who: EnrollingMember): Promise<string[]> {
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => recoveryCode());
    await this.db.transaction(async (m) => {
      await m.query(`DELETE FROM console_recovery_codes WHERE user_id = $1`, [userId]);
      for (const code of codes) await m.query(`INSERT INTO console_recovery_codes (user_id, code_hash) VALUES ($1, $2)`, [userId, this.recoveryHash(userId, code)]);
      await this.consoleEntry(who, 'console.recovery_codes_issued', { count: codes.length }, m);
    });
    return codes;
  }

  async useRecoveryCode(userId: string, code: string, who: EnrollingMember): Promise<FactorOutcome> {
    const normal = code.toLowerCase().replace(/[^a-z0-9]/g, '');
    return this.attempt(userId, who, 'recovery_code', async (m) => {
      const used = updatedRows<{ user_id: string }>(
        await m.query(`UPDATE console_recovery_codes SET used_at = now() WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL RETURNING user_id`, [userId, this.recoveryHash(userId, normal)]),
      );
      if (!used.length) return false;
      const [left]: { n: string }[] = await m.query(`SELECT count(*) AS n FROM console_recovery_codes WHERE user_id = $1 AND used_at IS NULL`, [userId]);
      await this.consoleEntry(who, 'console.recovery_code_used', { left: Number(left.n) }, m);
      return true;
    });
  }

  /** Options for the browser to create a passkey; the challenge is for the caller to keep with the sign-in. */
  async passkeyRegistrationOptions(userId: string, userName: string): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const existing: { credential_id: string; transports: string[] }[] = await this.db.query(`SELECT credential_id, transports FROM console_passkeys WHERE user_id = $1`, [userId]);
    const { generateRegistrationOptions } = await webauthn();
    return generateRegistrationOptions({
      rpName: this.issuer,
      rpID: this.rpId,
      userName,
      userID: new TextEncoder().encode(userId),
      attestationType: 'none',
      excludeCredentials: existing.map((c) => ({ id: c.credential_id, transports: c.transports })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
    });
  }

  async registerPasskey(userId: string, response: RegistrationResponseJSON, challenge: string, who: EnrollingMember): Promise<boolean> {
    try {
      const { verifyRegistrationResponse } = await webauthn();
      const r = await verifyRegistrationResponse({ response, expectedChallenge: challenge, expectedOrigin: this.origin, expectedRPID: this.rpId, requireUserVerification: true });
      if (!r.verified) return false;
      const c = r.registrationInfo.credential;
      await this.db.query(`INSERT INTO console_passkeys (id, user_id, credential_id, public_key, counter, transports) VALUES ($1, $2, $3, $4, $5, $6)`, [
        newId('pkey'),
        userId,
        c.id,
        Buffer.from(c.publicKey).toString('base64url'),
        c.counter,
        c.transports ?? [],
      ]);
      await this.audited(who, 'passkey');
      return true;
    } catch {
      return false; // a malformed or foreign response is a failed enrolment, not a fault of ours
    }
  }

  async passkeyAuthenticationOptions(userId: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const creds: { credential_id: string; transports: string[] }[] = await this.db.query(`SELECT credential_id, transports FROM console_passkeys WHERE user_id = $1`, [userId]);
    const { generateAuthenticationOptions } = await webauthn();
    return generateAuthenticationOptions({ rpID: this.rpId, allowCredentials: creds.map((c) => ({ id: c.credential_id, transports: c.transports as never })), userVerification: 'required' });
  }

  async verifyPasskey(userId: string, response: AuthenticationResponseJSON, challenge: string, who: EnrollingMember): Promise<FactorOutcome> {
    const id = typeof response?.id === 'string' ? response.id : '';
    return this.attempt(userId, who, 'passkey', async (m) => {
      const [cred]: { credential_id: string; public_key: string; counter: string; transports: string[] }[] = await m.query(
        `SELECT credential_id, public_key, counter, transports FROM console_passkeys WHERE user_id = $1 AND credential_id = $2`,
        [userId, id],
      );
      if (!cred) return false;
      let newCounter: number;
      const { verifyAuthenticationResponse } = await webauthn();
      try {
        const r = await verifyAuthenticationResponse({
          response,
          expectedChallenge: challenge,
          expectedOrigin: this.origin,
          expectedRPID: this.rpId,
          credential: { id: cred.credential_id, publicKey: Buffer.from(cred.public_key, 'base64url'), counter: Number(cred.counter), transports: cred.transports as never },
          requireUserVerification: true,
        });
        if (!r.verified) return false;
        newCounter = r.authenticationInfo.newCounter;
      } catch {
        return false; // a malformed or foreign response is a wrong attempt, not a fault of ours
      }
      await m.query(`UPDATE console_passkeys SET counter = $3, last_used_at = now() WHERE user_id = $1 AND credential_id = $2`, [userId, id, newCounter]);
      return true;
    });
  }

  /** True when `code` is the stored secret's (confirmed or not, as asked) and newer than the last accepted step, which it becomes. */
  private async totpAccepted(m: EntityManager, userId: string, code: string, confirmed: boolean): Promise<boolean> {
    const stored = await this.totpOf(userId, m);
    const token = code.replace(/\s+/g, '');
    if (!stored || stored.confirmed !== confirmed || !/^\d{6}$/.test(token)) return false;
    const timestamp = this.now().getTime();
    const delta = stored.totp('').validate({ token, timestamp, window: TOTP_WINDOW });
    if (delta === null) return false;
    const step = Math.floor(timestamp / 1000 / TOTP_PERIOD) + delta;
    // Each code once: the step must be newer than the last accepted (a code seen over a shoulder is spent).
    const accepted = updatedRows<{ user_id: string }>(
      await m.query(`UPDATE console_totp SET last_step = $2, confirmed_at = COALESCE(confirmed_at, now()) WHERE user_id = $1 AND last_step < $2 RETURNING user_id`, [userId, step]),
    );
    return accepted.length > 0;
  }

  /**
   * One attempt at a factor as one step per person (issue 40, finding 6): the user's row is locked,
   * the failures of the window are counted, the factor is checked and a failure recorded, all in one
   * transaction. Concurrent attempts of one person (from any address, any sign-in) queue on the lock,
   * so no more than SECOND_FACTOR_FAILURES are ever evaluated in a window. Passes, failures and the
   * lockout are audited with the member.
   */
  private async attempt(userId: string, who: EnrollingMember, kind: AttemptKind, check: (m: EntityManager) => Promise<boolean>): Promise<FactorOutcome> {
    return this.db.transaction(async (m) => {
      await m.query(`SELECT id FROM users WHERE id = $1 FOR UPDATE`, [userId]);
      const [row]: { n: string }[] = await m.query(`SELECT count(*) AS n FROM sign_in_failures WHERE bucket = $1 AND at > now() - interval '${FAILURE_WINDOW}'`, [this.bucket(userId)]);
      const failures = Number(row.n);
      if (failures >= SECOND_FACTOR_FAILURES) return 'rate_limited';
      if (await check(m)) {
        await this.consoleEntry(who, 'console.second_factor_passed', { kind }, m);
        return 'ok';
      }
      await m.query(`INSERT INTO sign_in_failures (bucket) VALUES ($1)`, [this.bucket(userId)]);
      await this.consoleEntry(who, 'console.second_factor_failed', { kind, failures: failures + 1 }, m);
      if (failures + 1 >= SECOND_FACTOR_FAILURES) await this.consoleEntry(who, 'console.second_factor_locked', { failures: failures + 1, window: FAILURE_WINDOW }, m);
      return 'wrong';
    });
  }

  private async totpOf(userId: string, m: Pick<EntityManager, 'query'> = this.db): Promise<{ secret: OTPAuth.Secret; confirmed: boolean; totp: (label: string) => OTPAuth.TOTP } | null> {
    const [row]: { secret_sealed: string; confirmed_at: Date | null }[] = await m.query(`SELECT secret_sealed, confirmed_at FROM console_totp WHERE user_id = $1`, [userId]);
    if (!row) return null;
    const secret = OTPAuth.Secret.fromBase32(this.box.open(row.secret_sealed));
    return { secret, confirmed: row.confirmed_at !== null, totp: (label) => new OTPAuth.TOTP({ issuer: this.issuer, label, algorithm: 'SHA1', digits: 6, period: TOTP_PERIOD, secret }) };
  }

  private recoveryHash(userId: string, code: string): string {
    return this.box.hmac(`console-recovery:${userId}:${code}`);
  }

  private bucket(userId: string): string {
    return `2fa:${this.box.hmac(userId)}`;
  }
}

function recoveryCode(): string {
  return Array.from({ length: 10 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('');
}
