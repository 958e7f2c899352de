import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Two scopes join the list (issue 41 item 5): `retention:manage` (retention had been guarded by
 * `webhooks:manage` on REST and `keys:manage` on GraphQL) and `flows:manage` (flows had no API).
 * A key's scopes are stored as granted, so a key that held every scope before keeps holding every
 * scope: it gains both. A key restricted to some scopes gains neither; its owner issues a new one.
 */
const OLD_ALL = ['sessions:read', 'sessions:write', 'sessions:review', 'webhooks:manage', 'keys:manage', 'sanctions:screen', 'dsr:manage'];
const NEW = ['retention:manage', 'flows:manage'];

export class RetentionAndFlowScopes1764980500000 implements MigrationInterface {
  name = 'RetentionAndFlowScopes1764980500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE api_keys SET scopes = scopes || $2::text[] WHERE scopes @> $1::text[] AND NOT scopes && $2::text[]`, [OLD_ALL, NEW]);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE api_keys SET scopes = array(SELECT s FROM unnest(scopes) s WHERE s <> ALL($1::text[]))`, [NEW]);
  }
}
