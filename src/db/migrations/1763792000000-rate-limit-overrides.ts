import { MigrationInterface, QueryRunner } from 'typeorm';

export class RateLimitOverrides1763792000000 implements MigrationInterface {
  name = 'RateLimitOverrides1763792000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE rate_limit_overrides (
      tenant_id text NOT NULL REFERENCES tenants(id),
      bucket text NOT NULL,
      "limit" integer NOT NULL CHECK ("limit" > 0),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, bucket)
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE rate_limit_overrides`);
  }
}
