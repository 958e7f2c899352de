import nodemailer, { type Transporter } from 'nodemailer';
import { DataSource } from 'typeorm';
import type { SecretBox } from '../crypto/secret-box';
import { newId } from '../ids';
import { normaliseEmail } from '../users/user.service';

export type MailMessage = { to: string; subject: string; text: string };
export type StoredMail = MailMessage & { id: string; transport: 'smtp' | 'stored'; createdAt: Date; sentAt: Date | null };

/**
 * The one way a message reaches a user (docs/accounts-and-oidc.md, "Mail"). Every message is
 * recorded (recipient and body sealed, since both are personal data); with SMTP_URL it is also
 * sent through that relay (nodemailer), otherwise the record is the delivery: the embedded default
 * for development and tests, read with `npm run cli -- mail list`.
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

  async send(message: MailMessage): Promise<{ id: string }> {
    const id = `mail_${newId('evt').slice(4)}`;
    const to = normaliseEmail(message.to);
    await this.db.query(
      `INSERT INTO mail_messages (id, to_hash, to_sealed, subject, text_sealed, transport) VALUES ($1, $2, $3, $4, $5, $6)`,
      [id, this.toHash(to), this.box.seal(to), message.subject, this.box.seal(message.text), this.transport ? 'smtp' : 'stored'],
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
    const rows: { id: string; to_sealed: string; subject: string; text_sealed: string; transport: 'smtp' | 'stored'; created_at: Date; sent_at: Date | null }[] = opts.to
      ? await this.db.query(`SELECT * FROM mail_messages WHERE to_hash = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, [this.toHash(normaliseEmail(opts.to)), limit])
      : await this.db.query(`SELECT * FROM mail_messages ORDER BY created_at DESC, id DESC LIMIT $1`, [limit]);
    return rows.map((r) => ({
      id: r.id,
      to: this.box.open(r.to_sealed),
      subject: r.subject,
      text: this.box.open(r.text_sealed),
      transport: r.transport,
      createdAt: new Date(r.created_at),
      sentAt: r.sent_at ? new Date(r.sent_at) : null,
    }));
  }

  close(): void {
    this.transport?.close();
  }

  private toHash(email: string): string {
    return this.box.hmac(`mail-to:${email}`);
  }
}
