import { Column, Entity, PrimaryColumn } from 'typeorm';

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'skipped';

/** One event on its way to one endpoint (a replay is a new delivery); its attempts are WebhookAttemptEntity rows. */
@Entity({ name: 'webhook_deliveries' })
export class WebhookDeliveryEntity {
  @PrimaryColumn('text')
  id: string;

  @Column('text', { name: 'endpoint_id' })
  endpointId: string;

  @Column('text', { name: 'tenant_id' })
  tenantId: string;

  @Column('text', { name: 'event_id' })
  eventId: string;

  @Column('text')
  status: WebhookDeliveryStatus;

  /** Attempts recorded so far; the job of attempt n runs only while this is n - 1. */
  @Column('int')
  attempts: number;

  @Column('boolean')
  replay: boolean;

  @Column('timestamptz', { name: 'next_attempt_at', nullable: true })
  nextAttemptAt: Date | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt: Date;
}
