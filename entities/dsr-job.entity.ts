import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A jsonb object; its values are JSON (objects and arrays nest). */
export type JsonObject = { [key: string]: string | number | boolean | null | object };

/**
 * One data-subject request (docs/data-rights.md, "DSR jobs"): every kind shares this row and the
 * state machine of src/data-rights/dsr-job-status.ts; what a kind needs beyond it sits in
 * `details` (its input) and `result` (what the user or the delegating tenant is told).
 */
@Entity({ name: 'dsr_jobs' })
export class DsrJobEntity {
  @PrimaryColumn('text')
  id: string;

  @Column('text', { name: 'user_id' })
  userId: string;

  @Column('text')
  kind: string;

  @Column('text')
  status: string;

  /** Why a job was denied (`not_confirmed`, ...) or failed; null otherwise. */
  @Column('text', { nullable: true })
  reason: string | null;

  @Column('jsonb')
  details: JsonObject;

  @Column('jsonb', { nullable: true })
  result: JsonObject | null;

  /** The tenant that initiated a delegated request, with its mode; null for the user's own requests. */
  @Column('text', { name: 'tenant_id', nullable: true })
  tenantId: string | null;

  @Column('boolean', { nullable: true })
  livemode: boolean | null;

  @Column('text', { name: 'callback_url', nullable: true })
  callbackUrl: string | null;

  /** Secrets of the job (an export's document key), sealed with the instance key; never in a link. */
  @Column('text', { name: 'secret_ciphertext', nullable: true })
  secretCiphertext: string | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  /** When the request counts as received: creation, or a delegated request's confirmation. */
  @Column('timestamptz', { name: 'received_at' })
  receivedAt: Date;

  @Column('timestamptz', { name: 'acknowledge_by' })
  acknowledgeBy: Date;

  @Column('timestamptz', { name: 'expected_by' })
  expectedBy: Date;

  /** Until when a delegated request waits for the user's confirmation. */
  @Column('timestamptz', { name: 'confirm_by', nullable: true })
  confirmBy: Date | null;

  @Column('timestamptz', { name: 'confirmed_at', nullable: true })
  confirmedAt: Date | null;

  @Column('timestamptz', { name: 'started_at', nullable: true })
  startedAt: Date | null;

  @Column('timestamptz', { name: 'completed_at', nullable: true })
  completedAt: Date | null;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt: Date;
}
