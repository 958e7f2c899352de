import type { DataSource } from 'typeorm';
import type { Config } from '../config';
import { SecretBox } from '../crypto/secret-box';

/**
 * The key that seals users' personal data (USER_DATA_KEY, or the one kept in the database). Apart from
 * src/users/accounts.ts so the CLI can open it without loading the OIDC provider that module builds.
 */
export const USER_DATA_SETTING = 'user_data_key';

export async function loadUserDataBox(db: DataSource, config: Config): Promise<SecretBox> {
  return SecretBox.load(db, USER_DATA_SETTING, config.accounts.userDataKey, 'USER_DATA_KEY');
}
