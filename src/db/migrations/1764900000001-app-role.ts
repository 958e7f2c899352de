import { MigrationInterface, QueryRunner } from 'typeorm';

/** The role the app's login role is a member of (docs/operations.md, "Database roles"). */
export const APP_ROLE = 'idv_app';

/**
 * The app connects as a role that owns nothing (issue #25 finding 13): the owner could switch the
 * audit trigger off (`session_replication_role = replica` as a superuser, `ALTER TABLE ... DISABLE
 * TRIGGER` as the owner). `idv_app` reads and writes rows and nothing else; the audit log and its
 * replication record are insert-only for it by grant, so neither the trigger nor its absence decides.
 * Idempotent: the role is made unless it exists (roles are per cluster, shared by databases), and the
 * grants are repeatable. The same SQL runs on the embedded PGlite, where it is harmless: there every
 * connection is one superuser session (docs/operations.md says what that means).
 */
export class AppRole1764900000001 implements MigrationInterface {
  name = 'AppRole1764900000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DO $$
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${APP_ROLE}') THEN
          CREATE ROLE ${APP_ROLE} NOLOGIN;
        END IF;
      EXCEPTION WHEN duplicate_object OR unique_violation THEN
        NULL; -- another database of this cluster made it at the same moment
      END $$`);
    await q.query(`GRANT USAGE ON SCHEMA public TO ${APP_ROLE}`);
    await q.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${APP_ROLE}`);
    await q.query(`GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO ${APP_ROLE}`);
    // The trigger fires whatever session_replication_role says (a replica-mode session skipped it before).
    await q.query(`ALTER TABLE audit_log ENABLE ALWAYS TRIGGER audit_log_no_update_delete`);
    await q.query(`ALTER TABLE audit_log ENABLE ALWAYS TRIGGER audit_log_no_truncate`);
    // Append-only by grant, not only by trigger.
    await q.query(`REVOKE UPDATE, DELETE, TRUNCATE ON audit_log, audit_segments FROM ${APP_ROLE}`);
    // Migrations are the owner's business.
    await q.query(`REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON typeorm_migrations FROM ${APP_ROLE}`);
    // Tables a later migration makes are the app's to use too (the owner makes them); a migration that adds an append-only table revokes as above.
    await q.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${APP_ROLE}`);
    await q.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO ${APP_ROLE}`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE audit_log ENABLE TRIGGER audit_log_no_truncate`);
    await q.query(`ALTER TABLE audit_log ENABLE TRIGGER audit_log_no_update_delete`);
    await q.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON SEQUENCES FROM ${APP_ROLE}`);
    await q.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON TABLES FROM ${APP_ROLE}`);
    await q.query(`REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM ${APP_ROLE}`);
    await q.query(`REVOKE ALL ON ALL TABLES IN SCHEMA public FROM ${APP_ROLE}`);
    await q.query(`REVOKE USAGE ON SCHEMA public FROM ${APP_ROLE}`);
    // The role stays: other databases of the cluster may use it.
  }
}
