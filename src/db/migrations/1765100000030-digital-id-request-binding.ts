import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a digital-ID request told the wallet, kept on its row (docs/digital-ids.md, "Signed requests"): the
 * client identifier, the response URI and the page origin its answer is bound to, and the request object
 * served at its `request_uri` (signed when a verifier key was set). The answer is verified against these, not
 * against the configuration at the time of the answer, so a request issued before the verifier key,
 * certificate or public URL changed is still answered within its 10 minutes. Rows from before have none of
 * them (null) and are verified as before, against the configuration of the time.
 */
export class DigitalIdRequestBinding1765100000030 implements MigrationInterface {
  name = 'DigitalIdRequestBinding1765100000030';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE digital_id_requests ADD COLUMN client_id text, ADD COLUMN response_uri text, ADD COLUMN expected_origin text, ADD COLUMN request_object text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE digital_id_requests DROP COLUMN request_object, DROP COLUMN expected_origin, DROP COLUMN response_uri, DROP COLUMN client_id`);
  }
}
