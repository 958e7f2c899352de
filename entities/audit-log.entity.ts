import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One entry of a hash-chained, append-only audit log (docs/retention-and-audit.md): a tenant's log
 * per mode, or the service's own (`tenantId` null). Written only by AuditLogService; a trigger
 * refuses UPDATE and DELETE. Holds ids and hashes, never personal data.
 */
@Entity({ name: 'audit_log' })
export class AuditLogEntity {
  /** Internal key and sort order only: a global sequence would tell tenants each other's volume. */
  @PrimaryGeneratedColumn({ type: 'bigint' })
  seq: string;

  /** The id clients see (`aud_` + 24 characters), part of the hashed fields. */
  @Column('text', { name: 'public_id' })
  publicId: string;

  /** `tenant:<tenant_id>:live|test` or `service`. */
  @Column('text', { name: 'log_id' })
  logId: string;

  /** Position in its log, from 1, without gaps. */
  @Column('bigint', { name: 'log_seq' })
  logSeq: string;

  @Column('text', { name: 'prev_hash' })
  prevHash: string;

  @Column('text')
  hash: string;

  @Column('text', { name: 'tenant_id', nullable: true })
  tenantId: string | null;

  @Column('boolean', { nullable: true })
  livemode: boolean | null;

  @Column('text')
  action: string;

  @Column('text', { name: 'subject_id' })
  subjectId: string;

  @Column('jsonb')
  detail: Record<string, unknown>;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;
}
