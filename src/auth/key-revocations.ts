import { DataSource, In } from 'typeorm';
import { ApiKeyEntity } from '../../entities';

/** Of the given key ids, those that are revoked (or gone); see AuthService.revokedKeyIds. */
export async function revokedKeyIds(db: DataSource, ids: readonly string[]): Promise<Set<string>> {
  const revoked = new Set<string>();
  for (let i = 0; i < ids.length; i += 1000) {
    const batch = ids.slice(i, i + 1000);
    const rows = await db.getRepository(ApiKeyEntity).find({ where: { id: In(batch) }, select: { id: true, revokedAt: true } });
    const active = new Set(rows.filter((r) => r.revokedAt === null).map((r) => r.id));
    for (const id of batch) if (!active.has(id)) revoked.add(id);
  }
  return revoked;
}
