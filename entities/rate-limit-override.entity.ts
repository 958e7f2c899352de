import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** An enterprise raise (or cut): one tenant's limit for one bucket, replacing the table's default. */
@Entity({ name: 'rate_limit_overrides' })
export class RateLimitOverrideEntity {
  @PrimaryColumn('text', { name: 'tenant_id' })
  tenantId: string;

  @PrimaryColumn('text')
  bucket: string;

  /** Requests per sliding 60 s window. */
  @Column('integer', { name: 'limit' })
  limit: number;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
