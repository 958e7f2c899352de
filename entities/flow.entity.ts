import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A verification flow template (docs/api-behaviour.md, "Flows"). */
@Entity({ name: 'flows' })
export class FlowEntity {
  @PrimaryColumn('text')
  id: string;

  @Column('text', { name: 'tenant_id' })
  tenantId: string;

  @Column('text')
  name: string;

  @Column('boolean', { name: 'is_default' })
  isDefault: boolean;

  @Column('text', { name: 'max_tier' })
  maxTier: string;

  @Column('text', { name: 'display_name' })
  displayName: string;

  @Column('text', { name: 'logo_url', nullable: true })
  logoUrl: string | null;

  @Column('text', { name: 'primary_color' })
  primaryColor: string;

  @Column('text')
  locale: string;

  @Column('text', { name: 'redirect_url', nullable: true })
  redirectUrl: string | null;

  /** Origins that may embed the hosted page (frame-ancestors) and receive its postMessage events. */
  @Column('text', { name: 'allowed_origins', array: true, default: () => "'{}'" })
  allowedOrigins: string[];

  /** D24: the hosted page offers "Use a digital ID" (on unless switched off). */
  @Column('boolean', { name: 'digital_id_enabled', default: true })
  digitalIdEnabled: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
