import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/** A tenant secret key. Only its SHA-256 hash is stored; the key itself is shown once. */
@Entity({ name: 'api_keys' })
export class ApiKeyEntity {
  @PrimaryColumn('text')
  id: string;

  @Column('text', { name: 'tenant_id' })
  tenantId: string;

  @Column('boolean')
  livemode: boolean;

  @Index({ unique: true })
  @Column('text', { name: 'key_hash' })
  keyHash: string;

  /** The last four characters, so an operator can tell keys apart. */
  @Column('text', { name: 'last4' })
  last4: string;

  @Column('text', { array: true })
  scopes: string[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column('timestamptz', { name: 'revoked_at', nullable: true })
  revokedAt: Date | null;
}
