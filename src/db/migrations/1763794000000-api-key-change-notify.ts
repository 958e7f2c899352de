import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every change to an API key row (revocation, deletion, a tenant's cascade) notifies the channel
 * `api_key_changed` with the key's id when its transaction commits. Servers cache authenticated keys
 * only while they listen on it, so a revocation made anywhere (another instance, the CLI, psql)
 * evicts the key everywhere at commit. A trigger rather than application code, so no write path
 * can forget it.
 */
export class ApiKeyChangeNotify1763794000000 implements MigrationInterface {
  name = 'ApiKeyChangeNotify1763794000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE FUNCTION notify_api_key_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('api_key_changed', OLD.id);
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER api_key_changed AFTER UPDATE OR DELETE ON api_keys
      FOR EACH ROW EXECUTE FUNCTION notify_api_key_changed()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER api_key_changed ON api_keys`);
    await q.query(`DROP FUNCTION notify_api_key_changed()`);
  }
}
