import { DataSource } from 'typeorm';
import { UserEntity, type ServiceVerification, type UserState } from '../../entities';
import type { SecretBox } from '../crypto/secret-box';
import { DomainError } from '../errors';
import { newId, randomBase62 } from '../ids';
import { hashPassword, verifyPassword } from './password-hash';
import { PASSWORD_PROBLEM_MESSAGES, passwordProblem } from './password-policy';
import { emailLookupHash, isEmail, normaliseEmail } from '../mail/email-address';

function assertAcceptablePassword(password: string): void {
  const problem = passwordProblem(password);
  if (problem) throw new DomainError('invalid_request', PASSWORD_PROBLEM_MESSAGES[problem]);
}

/** A user as the services see it: personal data opened, never the password hash. */
export type User = {
  id: string;
  email: string;
  emailVerified: boolean;
  displayName: string | null;
  handle: string | null;
  publicLinks: string[];
  bio: string | null;
  legalName: string | null;
  dateOfBirth: string | null;
  nationality: string | null;
  state: UserState;
  serviceVerification: ServiceVerification | null;
  createdAt: Date;
  updatedAt: Date;
};

export { PASSWORD_MAX, PASSWORD_MIN } from './password-policy';

/**
 * End users (docs/accounts-and-oidc.md): accounts, passwords, and the pairwise subject each tenant
 * knows a user by. Emails and verified fields are sealed at rest; an email is found by its keyed hash.
 */
export class UserService {
  // Compared against when the email is unknown, so a sign-in takes as long whether the account exists or not.
  private readonly dummyHash: Promise<string>;

  constructor(
    private readonly db: DataSource,
    private readonly box: SecretBox,
  ) {
    this.dummyHash = hashPassword(randomBase62(24));
  }

  emailHash(email: string): string {
    return emailLookupHash(this.box, email);
  }

  /** `emailVerified`: the CLI and the sign-up (after its code) create proved addresses. */
  async create(input: { email: string; password: string; emailVerified?: boolean; displayName?: string | null }): Promise<User> {
    assertAcceptablePassword(input.password);
    const created = await this.createWithHash({ ...input, passwordHash: await hashPassword(input.password) });
    if (!created) throw new DomainError('invalid_state', 'An account with this email already exists');
    return created;
  }

  /** Creates the account with an already hashed password; null when the address has one already (a concurrent sign-up won). */
  async createWithHash(input: { email: string; passwordHash: string; emailVerified?: boolean; displayName?: string | null }): Promise<User | null> {
    const email = normaliseEmail(input.email);
    if (!isEmail(email)) throw new DomainError('invalid_request', 'A valid email address is required');
    const id = newId('usr');
    const inserted: { id: string }[] = await this.db.query(
      `INSERT INTO users (id, email_sealed, email_hash, email_verified, password_hash, display_name)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (email_hash) DO NOTHING RETURNING id`,
      [id, this.box.seal(email), this.emailHash(email), input.emailVerified ?? false, input.passwordHash, input.displayName ?? null],
    );
    if (!inserted.length) return null;
    return (await this.findById(id))!;
  }

  async findById(id: string): Promise<User | null> {
    const row = await this.db.getRepository(UserEntity).findOneBy({ id });
    return row ? this.open(row) : null;
  }

  async findByEmail(email: string): Promise<User | null> {
    const row = await this.db.getRepository(UserEntity).findOneBy({ emailHash: this.emailHash(email) });
    return row ? this.open(row) : null;
  }

  /**
   * The user whose password this is, or null; an unknown email costs one scrypt too. A restricted
   * user signs in as before (docs/data-rights.md, "Restriction": data-rights requests go on, and
   * lifting the restriction needs a sign-in); a deleted one never does.
   */
  async verifyPassword(email: string, password: string): Promise<User | null> {
    const row = await this.db.getRepository(UserEntity).findOneBy({ emailHash: this.emailHash(email) });
    if (!row) {
      await verifyPassword(password, await this.dummyHash);
      return null;
    }
    const ok = await verifyPassword(password, row.passwordHash);
    return ok && (row.state === 'active' || row.state === 'restricted') ? this.open(row) : null;
  }

  async setPassword(userId: string, password: string): Promise<void> {
    assertAcceptablePassword(password);
    await this.setPasswordHash(userId, await hashPassword(password));
  }

  async setPasswordHash(userId: string, passwordHash: string): Promise<void> {
    await this.db.getRepository(UserEntity).update({ id: userId }, { passwordHash, updatedAt: () => 'now()' });
  }

  /** The tenant's own subject for this user, created on first use (pairwise: another tenant never gets the same one). */
  async subjectFor(userId: string, tenantId: string): Promise<string> {
    // Asked several times per token grant (ID token, access token, userinfo): a read first, a write only the first time.
    const found: { sub: string }[] = await this.db.query(`SELECT sub FROM user_subjects WHERE tenant_id = $1 AND user_id = $2`, [tenantId, userId]);
    if (found.length) return found[0].sub;
    await this.db.query(`INSERT INTO user_subjects (tenant_id, user_id, sub) VALUES ($1, $2, $3) ON CONFLICT (tenant_id, user_id) DO NOTHING`, [
      tenantId,
      userId,
      randomBase62(32),
    ]);
    const rows: { sub: string }[] = await this.db.query(`SELECT sub FROM user_subjects WHERE tenant_id = $1 AND user_id = $2`, [tenantId, userId]);
    return rows[0].sub;
  }

  /** The user a tenant's subject names, or null (another tenant's subject is unknown here). */
  async userIdForSubject(tenantId: string, sub: string): Promise<string | null> {
    const rows: { user_id: string }[] = await this.db.query(`SELECT user_id FROM user_subjects WHERE tenant_id = $1 AND sub = $2`, [tenantId, sub]);
    return rows[0]?.user_id ?? null;
  }

  /** A `users` row as SELECT * returns it (snake_case), opened. */
  fromRow(r: Record<string, unknown>): User {
    return this.open({
      id: r.id,
      emailSealed: r.email_sealed,
      emailHash: r.email_hash,
      emailVerified: r.email_verified,
      passwordHash: r.password_hash,
      displayName: r.display_name,
      handle: r.handle,
      publicLinks: r.public_links,
      bio: r.bio,
      legalNameSealed: r.legal_name_sealed,
      dateOfBirthSealed: r.date_of_birth_sealed,
      nationalitySealed: r.nationality_sealed,
      state: r.state,
      serviceVerification: r.service_verification,
      createdAt: new Date(r.created_at as string),
      updatedAt: new Date(r.updated_at as string),
    } as UserEntity);
  }

  private open(row: UserEntity): User {
    const open = (v: string | null) => (v === null ? null : this.box.open(v));
    return {
      id: row.id,
      email: this.box.open(row.emailSealed),
      emailVerified: row.emailVerified,
      displayName: row.displayName,
      handle: row.handle,
      publicLinks: row.publicLinks,
      bio: row.bio,
      legalName: open(row.legalNameSealed),
      dateOfBirth: open(row.dateOfBirthSealed),
      nationality: open(row.nationalitySealed),
      state: row.state,
      serviceVerification: row.serviceVerification,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    };
  }
}
