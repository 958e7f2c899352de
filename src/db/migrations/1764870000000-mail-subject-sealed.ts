import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A mail's subject is sealed like its recipient and body (a code mail's subject holds the code).
 * Subjects stored in clear before cannot be sealed from SQL, so they are blanked; their codes
 * expired long ago (10 minutes), and the daily sweep drops the rows after 30 days.
 */
export class MailSubjectSealed1764870000000 implements MigrationInterface {
  name = 'MailSubjectSealed1764870000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE mail_messages RENAME COLUMN subject TO subject_sealed`);
    await q.query(`UPDATE mail_messages SET subject_sealed = ''`);
    await q.query(`CREATE INDEX mail_messages_created ON mail_messages (created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX mail_messages_created`);
    await q.query(`ALTER TABLE mail_messages RENAME COLUMN subject_sealed TO subject`);
  }
}
