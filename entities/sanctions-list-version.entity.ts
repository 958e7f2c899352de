import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { ListSnapshot } from '../src/sanctions/sanctions.model';

/** One loaded version of one sanctions list: the whole normalised snapshot, immutable once written. */
@Entity({ name: 'sanctions_list_versions' })
export class SanctionsListVersionEntity {
  /** bigserial: the driver returns it as a string. */
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  id: string;

  @Column('text')
  list: string;

  /** `<list>-<publish date>-<content hash>`: two loads of the same content share it. */
  @Column('text')
  version: string;

  @Column('text')
  format: string;

  @Column('text', { name: 'source_file' })
  sourceFile: string;

  @Column('text', { name: 'published_at', nullable: true })
  publishedAt: string | null;

  @Column('integer', { name: 'entry_count' })
  entryCount: number;

  @Column('jsonb', { default: () => `'[]'` })
  warnings: string[];

  /** Select it only when building an index: it is the large column. */
  @Column('jsonb', { select: false })
  snapshot: ListSnapshot;

  @Column('timestamptz', { name: 'loaded_at', default: () => 'now()' })
  loadedAt: Date;
}
