import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'tenants' })
export class TenantEntity {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  name: string;

  /** Minimum score of a sanctions hit for this tenant's screenings (CLI `tenant set-threshold`). */
  @Column('double precision', { name: 'sanctions_threshold', default: 0.7 })
  sanctionsThreshold: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
