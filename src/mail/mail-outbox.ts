import type { Transporter } from 'nodemailer';
import { DataSource } from 'typeorm';
import type { SecretBox } from '../crypto/secret-box';
import { newId } from '../ids';
import { emailLookupHash, normaliseEmail } from './email-address';

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
  /** The relay's transport, made on the first message: nodemailer is loaded only by an instance that sends mail. */
  private transport: Promise<Transporter> | null = null;

  constructor(
    private readonly db: DataSource,
    private readonly box: SecretBox,
    private readonly options: { smtpUrl: string | undefined; from: string },
  ) {}

  private smtp(): Promise<Transporter> | null {
    const url = this.options.smtpUrl;
    if (!url) return null;
    this.transport ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(url));
    return this.transport;
  }

  /** `id` is null when the address belongs to a deleted (or purged) account: its owner asked us to stop. */
  async send(message: MailMessage): Promise<{ id: string | null }> {
    return (await this.sendMany([message]))[0];
  }

  /**
   * `send` for many messages (a bulk import's links): one read of the deleted accounts and one INSERT
   * for all of them; with SMTP each is then sent in turn. In the order given.
   */
  async sendMany(messages: MailMessage[]): Promise<{ id: string | null }[]> {
    if (messages.length === 0) return [];
    const prepared = messages.map((m) => {
      const to = normaliseEmail(m.to);
      return { ...m, to, toHash: emailLookupHash(this.box, to) };
    });
    const deletedRows: { email_hash: string }[] = await this.db.query(`SELECT email_hash FROM users WHERE email_hash = ANY($1::text[]) AND state IN ('soft_deleted', 'purged')`, [
      [...new Set(prepared.map((p) => p.toHash))],
    ]);
    const deleted = new Set(deletedRows.map((r) => r.email_hash));
    const ids = prepared.map((p) => (deleted.has(p.toHash) ? null : `mail_${newId('evt').slice(4)}`));
    const kept = prepared.flatMap((p, i) => (ids[i] ? [{ ...p, id: ids[i] }] : []));
    if (kept.length) {
      await this.db.query(
        `INSERT INTO mail_messages (id, to_hash, to_sealed, subject_sealed, text_sealed, transport) SELECT *, $6 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])`,
        [kept.map((k) => k.id), kept.map((k) => k.toHash), kept.map((k) => this.box.seal(k.to)), kept.map((k) => this.box.seal(k.subject)), kept.map((k) => this.box.seal(k.text)), this.options.smtpUrl ? 'smtp' : 'stored'],
      );
    }
    const smtp = kept.length ? this.smtp() : null;
    if (smtp) {
      const transport = await smtp;
      for (const k of kept) {
        await transport.sendMail({ from: this.options.from, to: k.to, subject: k.subject, text: k.text });
        await this.db.query(`UPDATE mail_messages SET sent_at = now() WHERE id = $1`, [k.id]);
      }
    }
    return ids.map((id) => ({ id }));
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
    void this.transport?.then((t) => t.close(), () => undefined);
  }
}

/** The daily sweep: mail kept past MAIL_KEPT_DAYS goes (sent or, for the stored transport, delivered by being kept). */
export async function dropOldMail(db: DataSource, keptDays = MAIL_KEPT_DAYS): Promise<number> {
  const out: unknown = await db.query(`DELETE FROM mail_messages WHERE created_at < now() - make_interval(days => $1)`, [keptDays]);
  return Array.isArray(out) && typeof out[1] === 'number' ? out[1] : 0;
}
