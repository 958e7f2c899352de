import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** Things the service did on its own that a tenant must be able to find out about (e.g. disabling a webhook endpoint). */
@Entity({ name: 'audit_log' })
export class AuditLogEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  seq: string;

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
