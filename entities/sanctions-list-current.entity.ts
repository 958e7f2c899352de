import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The version of each list in force: screenings use exactly these rows. */
@Entity({ name: 'sanctions_list_current' })
export class SanctionsListCurrentEntity {
  @PrimaryColumn('text')
  list: string;

  @Column('bigint', { name: 'version_id' })
  versionId: string;

  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' })
  updatedAt: Date;
}
