import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * The transactional outbox (docs/api-behaviour.md, "Session lifecycle"): a row is written in the same transaction as the state
 * change it announces, and is published and delivered only after that commit.
 */
@Entity({ name: 'outbox_events' })
export class OutboxEventEntity {
  /** Commit order within the database; consumers read in this order. */
  @PrimaryGeneratedColumn({ type: 'bigint' })
  seq: string;

  @Column('text', { name: 'event_id', unique: true })
  eventId: string;

  @Column('text')
  type: string;

  @Column('text', { name: 'tenant_id' })
  tenantId: string;

  @Column('boolean')
  livemode: boolean;

  @Column('text', { name: 'session_id', nullable: true })
  sessionId: string | null;

  @Column('jsonb')
  payload: Record<string, unknown>;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;
}
