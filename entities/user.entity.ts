import { Column, Entity, PrimaryColumn } from 'typeorm';

/** `active` now; the data-rights work adds `restricted`, `soft_deleted` and `purged`. */
export type UserState = 'active' | 'restricted' | 'soft_deleted' | 'purged';

/** What verifications have established about a user (docs/accounts-and-oidc.md, "Scopes and claims"). */
export type ServiceVerification = { badges: string[]; tier: string | null; verified_at: string | null };

/**
 * An end user (`usr_`). Personal data that is not a public profile is sealed (AES-256-GCM, see
 * src/crypto/secret-box.ts, under the user-data key that src/users/accounts.ts loads): the email, found
 * by its keyed hash, and the verified fields. The
 * self-managed profile (display name, handle, links, bio) is what the user publishes, kept in clear.
 */
@Entity({ name: 'users' })
export class UserEntity {
  @PrimaryColumn('text')
  id: string;

  @Column('text', { name: 'email_sealed' })
  emailSealed: string;

  /** HMAC-SHA256 of the normalised email under the user-data key: unique, and the only way to find a user by email. */
  @Column('text', { name: 'email_hash' })
  emailHash: string;

  @Column('boolean', { name: 'email_verified' })
  emailVerified: boolean;

  /** `scrypt$N$r$p$<salt b64>$<hash b64>`, a salt per user. */
  @Column('text', { name: 'password_hash' })
  passwordHash: string;

  @Column('text', { name: 'display_name', nullable: true })
  displayName: string | null;

  @Column('text', { nullable: true })
  handle: string | null;

  @Column('jsonb', { name: 'public_links' })
  publicLinks: string[];

  @Column('text', { nullable: true })
  bio: string | null;

  @Column('text', { name: 'legal_name_sealed', nullable: true })
  legalNameSealed: string | null;

  @Column('text', { name: 'date_of_birth_sealed', nullable: true })
  dateOfBirthSealed: string | null;

  @Column('text', { name: 'nationality_sealed', nullable: true })
  nationalitySealed: string | null;

  @Column('text')
  state: UserState;

  @Column('jsonb', { name: 'service_verification', nullable: true })
  serviceVerification: ServiceVerification | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt: Date;
}
