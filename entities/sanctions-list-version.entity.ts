import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { ListSnapshot } from './list-snapshot.document';

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

  /** Rows written before snapshots were compressed; newer rows leave it null. Select it only to build an index. */
  @Column('jsonb', { select: false, nullable: true })
  snapshot: ListSnapshot | null;

  /** The snapshot as gzip-compressed JSON (nothing queries inside it; see the migration for why not jsonb). */
  @Column('bytea', { name: 'snapshot_gz', select: false, nullable: true })
  snapshotGz: Buffer | null;

  @Column('timestamptz', { name: 'loaded_at', default: () => 'now()' })
  loadedAt: Date;
}
