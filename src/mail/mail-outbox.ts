import nodemailer, { type Transporter } from 'nodemailer';
import { DataSource } from 'typeorm';
import type { SecretBox } from '../crypto/secret-box';
import { newId } from '../ids';
import { emailLookupHash, normaliseEmail } from '../users/user.service';

export type MailMessage = { to: string; subject: string; text: string };
export type StoredMail = MailMessage & { id: string; transport: 'smtp' | 'stored'; createdAt: Date; sentAt: Date | null };

/** Kept mail older than this is dropped by the daily sweep (docs/accounts-and-oidc.md, "Mail"). */
export const MAIL_KEPT_DAYS = 30;
export const MAIL_SWEEP_JOB = 'mail-sweep';
export const MAIL_SWEEP_CRON = '17 3 * * *';

/**
 * The one way a message reaches a user (docs/accounts-and-oidc.md, "Mail"). Every message is
 * recorded with recipient, subject and body sealed (a code mail's subject holds the code, and all
 * three are personal data); with SMTP_URL it is also sent through that relay (nodemailer), otherwise
 * the record is the delivery: the embedded default for development and tests, read with
 * `npm run cli -- mail list`. Nothing is sent to the address of a deleted account.
 */
export class MailOutbox {
  private readonly transport: Transporter | null;

  constructor(
    private readonly db: DataSource,
    private readonly box: SecretBox,
    private readonly options: { smtpUrl: string | undefined; from: string },
  ) {
    this.transport = options.smtpUrl ? nodemailer.createTransport(options.smtpUrl) : null;
  }

  /** `id` is null when the address belongs to a deleted (or purged) account: its owner asked us to stop. */
  async send(message: MailMessage): Promise<{ id: string | null }> {
    const to = normaliseEmail(message.to);
    const toHash = emailLookupHash(this.box, to);
    const deleted: unknown[] = await this.db.query(`SELECT 1 FROM users WHERE email_hash = $1 AND state IN ('soft_deleted', 'purged')`, [toHash]);
    if (deleted.length) return { id: null };
    const id = `mail_${newId('evt').slice(4)}`;
    await this.db.query(
      `INSERT INTO mail_messages (id, to_hash, to_sealed, subject_sealed, text_sealed, transport) VALUES ($1, $2, $3, $4, $5, $6)`,
      [id, toHash, this.box.seal(to), this.box.seal(message.subject), this.box.seal(message.text), this.transport ? 'smtp' : 'stored'],
    );
    if (this.transport) {
      await this.transport.sendMail({ from: this.options.from, to, subject: message.subject, text: message.text });
      await this.db.query(`UPDATE mail_messages SET sent_at = now() WHERE id = $1`, [id]);
    }
    return { id };
  }

  /** Newest first; `to` narrows to one recipient. */
  async list(opts: { to?: string; limit?: number } = {}): Promise<StoredMail[]> {
    const limit = Math.min(Math.max(opts.limit ?? 50, 1), 500);
    const rows: { id: string; to_sealed: string; subject_sealed: string; text_sealed: string; transport: 'smtp' | 'stored'; created_at: Date; sent_at: Date | null }[] = opts.to
      ? await this.db.query(`SELECT * FROM mail_messages WHERE to_hash = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, [emailLookupHash(this.box, opts.to), limit])
      : await this.db.query(`SELECT * FROM mail_messages ORDER BY created_at DESC, id DESC LIMIT $1`, [limit]);
    return rows.map((r) => ({
      id: r.id,
      to: this.box.open(r.to_sealed),
      // Rows from before subjects were sealed had theirs blanked by the migration.
      subject: r.subject_sealed ? this.box.open(r.subject_sealed) : '',
      text: this.box.open(r.text_sealed),
      transport: r.transport,
      createdAt: new Date(r.created_at),
      sentAt: r.sent_at ? new Date(r.sent_at) : null,
    }));
  }

  close(): void {
    this.transport?.close();
  }
}

/** The daily sweep: mail kept past MAIL_KEPT_DAYS goes (sent or, for the stored transport, delivered by being kept). */
export async function dropOldMail(db: DataSource, keptDays = MAIL_KEPT_DAYS): Promise<number> {
  const out: unknown = await db.query(`DELETE FROM mail_messages WHERE created_at < now() - make_interval(days => $1)`, [keptDays]);
  return Array.isArray(out) && typeof out[1] === 'number' ? out[1] : 0;
}
