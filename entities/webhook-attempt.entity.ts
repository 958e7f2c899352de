import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** The delivery log: one row per HTTP attempt, whatever its outcome. */
@Entity({ name: 'webhook_attempts' })
export class WebhookAttemptEntity {
  /** Internal key and sort order only: a global sequence would tell tenants each other's volume. */
  @PrimaryGeneratedColumn({ type: 'bigint' })
  seq: string;

  /** The id clients see; set by the database (a random prefixed id). */
  @Column({ type: 'text', name: 'public_id', insert: false, update: false })
  publicId: string;

  @Column('text', { name: 'delivery_id' })
  deliveryId: string;

  @Column('text', { name: 'endpoint_id' })
  endpointId: string;

  @Column('text', { name: 'tenant_id' })
  tenantId: string;

  @Column('text', { name: 'event_id' })
  eventId: string;

  @Column('int')
  attempt: number;

  @Column('timestamptz', { name: 'started_at' })
  startedAt: Date;

  @Column('int', { name: 'duration_ms' })
  durationMs: number;

  @Column('int', { name: 'status_code', nullable: true })
  statusCode: number | null;

  @Column('boolean')
  succeeded: boolean;

  @Column('text', { nullable: true })
  error: string | null;

  /** The receiver's response body, truncated (WEBHOOK_LOG_BODY_BYTES). */
  @Column('text', { name: 'response_body', nullable: true })
  responseBody: string | null;

  @Column('timestamptz', { name: 'next_retry_at', nullable: true })
  nextRetryAt: Date | null;
}
