import { Column, Entity, PrimaryColumn } from 'typeorm';

export type WebhookEndpointStatus = 'enabled' | 'disabled';

/**
 * A tenant's registered receiver. The signing secret is needed in clear to sign, so it is kept
 * encrypted at rest (AES-256-GCM, see src/webhooks/webhook-secret.box.ts), never hashed.
 */
@Entity({ name: 'webhook_endpoints' })
export class WebhookEndpointEntity {
  @PrimaryColumn('text')
  id: string;

  @Column('text', { name: 'tenant_id' })
  tenantId: string;

  @Column('boolean')
  livemode: boolean;

  @Column('text')
  url: string;

  @Column('text', { array: true })
  events: string[];

  @Column('text', { name: 'secret_ciphertext' })
  secretCiphertext: string;

  /** The secret before the last rotation, still signed with until `previousSecretExpiresAt`. */
  @Column('text', { name: 'previous_secret_ciphertext', nullable: true })
  previousSecretCiphertext: string | null;

  @Column('timestamptz', { name: 'previous_secret_expires_at', nullable: true })
  previousSecretExpiresAt: Date | null;

  @Column('text')
  status: WebhookEndpointStatus;

  @Column('text', { name: 'disabled_reason', nullable: true })
  disabledReason: string | null;

  /** Start of the current run of failed attempts; cleared by any success. */
  @Column('timestamptz', { name: 'failing_since', nullable: true })
  failingSince: Date | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt: Date;

  /** Deleted endpoints stay for their delivery log but are invisible and never sent to. */
  @Column('timestamptz', { name: 'deleted_at', nullable: true })
  deletedAt: Date | null;
}
