import type { DataSource } from 'typeorm';
import { InstanceSettingEntity } from '../../entities';

/**
 * The instance-wide secret kept under `key` in instance_settings (link keys, signing keys, master
 * keys not given by the environment): the first instance to start stores what `generate` makes,
 * and every instance and restart reads that one value, so all instances agree without configuration.
 */
export async function instanceSecret(db: DataSource, key: string, generate: () => string): Promise<string> {
  const repo = db.getRepository(InstanceSettingEntity);
  await repo.createQueryBuilder().insert().values({ key, value: generate() }).orIgnore().execute();
  return (await repo.findOneByOrFail({ key })).value;
}
