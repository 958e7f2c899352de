import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** Things the service did on its own that a tenant must be able to find out about (e.g. disabling a webhook endpoint). */
@Entity({ name: 'audit_log' })
export class AuditLogEntity {
  /** Internal key and sort order only: a global sequence would tell tenants each other's volume. */
  @PrimaryGeneratedColumn({ type: 'bigint' })
  seq: string;

  /** The id clients see; set by the database (a random prefixed id). */
  @Column({ type: 'text', name: 'public_id', insert: false, update: false })
  publicId: string;

  @Column('text', { name: 'tenant_id' })
  tenantId: string;

  @Column('boolean')
  livemode: boolean;

  @Column('text')
  action: string;

  @Column('text', { name: 'subject_id' })
  subjectId: string;

  @Column('jsonb')
  detail: Record<string, unknown>;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;
}
