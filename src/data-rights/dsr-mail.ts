import type { DataSource, EntityManager } from 'typeorm';
import type { SecretBox } from '../crypto/secret-box';
import type { JobQueue } from '../jobs/job-queue';
import type { MailMessage } from '../mail/mail-outbox';
import { SessionSql } from '../sessions/session.sql';
import type { DsrJob } from './dsr-job.service';

/**
 * The mail a data request owes (docs/data-rights.md, "Mail"): sent by a durable job queued in the
 * transaction that made it due, so a mail is never sent for a change that did not commit, and never
 * lost to a crash after one that did.
 */
export const DSR_MAIL_JOB = 'dsr-mail';
export type DsrMailData = { kind: 'export_ready'; dsrId: string } | { kind: 'review_requested'; caseId: string } | { kind: 'review_decided'; caseId: string };

/** Queues one mail in the caller's transaction. */
export async function queueDsrMail(jobs: Pick<JobQueue, 'send'>, data: DsrMailData, m: EntityManager): Promise<void> {
  const key = data.kind === 'export_ready' ? data.dsrId : data.caseId;
  await jobs.send<DsrMailData>(DSR_MAIL_JOB, data, { within: m, singletonKey: `${data.kind}:${key}` });
}

type CaseRow = { id: string; session_id: string; tenant_id: string; tenant_name: string; livemode: boolean; decision: string | null; expected_by: Date; email_sealed: string | null; created_at: Date };

const OUTCOME_TEXT: Record<string, string> = {
  upheld: 'The decision stands: the person who reviewed it kept it.',
  approved: 'The decision was changed: your verification is now approved.',
  declined: 'The decision was changed: your verification is now declined.',
};

const day = (d: Date) => new Date(d).toISOString().slice(0, 10);

/**
 * Writes the messages: a user's export is ready (to the user); a user asks for a human review (to the
 * tenant's owners and admins, whose decision it is); the review's outcome (to the user). Messages
 * name no personal data of the user to anyone but the user: the tenant's mail points to the case.
 * The reviewer's reason stays with the tenant (the console says the user never sees it).
 */
export class DsrMail {
  constructor(
    private readonly db: Pick<DataSource, 'query'>,
    private readonly mail: { sendMany(messages: MailMessage[]): Promise<unknown> },
    private readonly box: SecretBox,
    private readonly publicBaseUrl: string,
  ) {}

  async run(data: DsrMailData): Promise<void> {
    if (data.kind === 'export_ready') return this.exportReady(data.dsrId);
    const c = await this.caseOf(data.caseId);
    if (!c) return; // erased with its user since
    return data.kind === 'review_requested' ? this.reviewRequested(c) : this.reviewDecided(c);
  }

  private async exportReady(dsrId: string): Promise<void> {
    const rows: { email_sealed: string | null; result: DsrJob['result'] }[] = await this.db.query(
      `SELECT u.email_sealed, j.result FROM dsr_jobs j JOIN users u ON u.id = j.user_id WHERE j.id = $1 AND j.status = 'completed'`,
      [dsrId],
    );
    const r = rows[0];
    if (!r?.email_sealed) return;
    const until = typeof r.result?.download_expires_at === 'string' ? day(new Date(r.result.download_expires_at)) : null;
    await this.mail.sendMany([
      {
        to: this.box.open(r.email_sealed),
        subject: 'Your data export is ready',
        text: [
          `The copy of your data you asked for (request ${dsrId}) is ready.`,
          '',
          'Sign in to your account to download it, and to see the key that opens your documents in it:',
          `${this.publicBaseUrl}/account/exports/${dsrId}`,
          ...(until ? ['', `The download works until ${until}.`] : []),
        ].join('\n'),
      },
    ]);
  }

  private async reviewRequested(c: CaseRow): Promise<void> {
    const staff: { email_sealed: string }[] = await this.db.query(
      `SELECT u.email_sealed FROM members m JOIN users u ON u.id = m.user_id AND u.state IN ('active', 'restricted')
        WHERE m.tenant_id = $1 AND m.role IN ('owner', 'admin') AND u.email_sealed IS NOT NULL ORDER BY m.created_at, m.id`,
      [c.tenant_id],
    );
    const text = [
      `A person your service verified asks for a human review of the decision on verification ${c.session_id}${c.livemode ? '' : ' (test mode)'} (GDPR Art. 22).`,
      '',
      `It is in your console's review queue. Decide it by ${day(c.expected_by)} (7 business days after the request):`,
      `${this.publicBaseUrl}/console/cases/${c.session_id}`,
      '',
      'Approve, decline or reverse the decision there, or keep it; the person is told the outcome.',
    ].join('\n');
    await this.mail.sendMany(staff.map((s) => ({ to: this.box.open(s.email_sealed), subject: `Review requested: verification ${c.session_id}`, text })));
  }

  private async reviewDecided(c: CaseRow): Promise<void> {
    if (!c.email_sealed || !c.decision) return;
    await this.mail.sendMany([
      {
        to: this.box.open(c.email_sealed),
        subject: `The outcome of your review request at ${c.tenant_name}`,
        text: [
          `You asked for a person to review the decision on your verification for ${c.tenant_name} (${day(c.created_at)}).`,
          '',
          OUTCOME_TEXT[c.decision] ?? c.decision,
          '',
          `Your requests and their outcomes are in your account: ${this.publicBaseUrl}/account`,
        ].join('\n'),
      },
    ]);
  }

  private async caseOf(caseId: string): Promise<CaseRow | null> {
    const rows: CaseRow[] = await this.db.query(
      `SELECT rc.id, rc.session_id, s.tenant_id, t.name AS tenant_name, s.livemode, rc.decision, j.expected_by, rc.created_at,
              CASE WHEN u.state IN ('active', 'restricted') THEN u.email_sealed END AS email_sealed
         FROM review_cases rc ${SessionSql.scopeJoin('s', 'rc.session_id')} JOIN tenants t ON t.id = s.tenant_id
         JOIN dsr_jobs j ON j.id = rc.dsr_job_id JOIN users u ON u.id = rc.user_id
        WHERE rc.id = $1`,
      [caseId],
    );
    return rows[0] ?? null;
  }
}

/** When a user's own export completes, its mail is queued in that transaction (a delegated export's result goes to the tenant's callback instead). */
export const queueExportReadyMail =
  (jobs: Pick<JobQueue, 'send'>) =>
  async (job: DsrJob, m: EntityManager): Promise<void> => {
    if (job.kind === 'export' && job.status === 'completed' && !job.delegatedBy) await queueDsrMail(jobs, { kind: 'export_ready', dsrId: job.id }, m);
  };
