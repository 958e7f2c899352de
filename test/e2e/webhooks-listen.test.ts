import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import type { Client } from 'pg';
import { verifyServiceSignature } from '../../src/index';
import { dbClient } from '../helpers/hosted-client';
import { cli, createTenant, eventually, http, ROOT, startServer, Tenant, TestServer, testEnv } from '../helpers/test-server';
import { onReceipt, WebhookReceiver } from '../helpers/webhook-receiver';

const CLI = path.join(ROOT, 'dist', 'app', 'cli.js');

/** `webhooks listen` as a developer runs it: a child process that runs until stopped, its lines as they come. */
class Listener {
  readonly lines: string[] = [];
  readonly exited: Promise<number | null>;
  private constructor(readonly proc: ChildProcess) {
    const take = (l: string) => this.lines.push(l);
    readline.createInterface({ input: proc.stdout! }).on('line', take);
    readline.createInterface({ input: proc.stderr! }).on('line', take);
    this.exited = new Promise((resolve) => proc.once('exit', (code) => resolve(code)));
  }

  static start(env: NodeJS.ProcessEnv, args: string[]): Listener {
    return new Listener(spawn(process.execPath, [CLI, 'webhooks', 'listen', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] }));
  }

  async secret(): Promise<string> {
    const line = await eventually(async () => this.lines.find((l) => l.includes('Listen secret')), 60_000);
    return line.split(': ').pop()!.trim();
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGTERM');
    await this.exited;
  }
}

type Event = { id: string; type: string; livemode: boolean; data: Record<string, any> };

/**
 * Webhooks to a developer's machine (D23, docs/webhooks.md "On your own machine"), and an event for
 * every end of a session (D22): the service refuses to deliver to the local receiver, and
 * `webhooks listen` brings every test-mode event to it, signed with the secret it printed.
 */
describe('webhooks listen', () => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  let tenant: Tenant;
  let listener: Listener;
  let secret: string;
  let db: Client;
  const events = (): (Event & { signed: boolean; eventIdHeader: string })[] =>
    receiver.at('/hook').map((r) => ({ ...(JSON.parse(r.body) as Event), signed: verifyServiceSignature(r.body, r.headers['service-signature'] as string, secret, onReceipt(r)), eventIdHeader: r.headers['service-event-id'] as string }));
  const eventsOf = (sessionId: string) => events().filter((e) => e.data.session_id === sessionId);
  const create = async (metadata: Record<string, unknown> = {}) => {
    const r = await http(server, 'POST', '/v1/verify/sessions', { key: tenant.test_api_key, json: { flow_id: 'default', tier: 'T1', metadata } });
    expect(r.status).toBe(201);
    return r.body.id as string;
  };

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    // The service's default: no webhook to a private or loopback address (D7).
    server = await startServer(testEnv({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' }));
    tenant = await createTenant(server, 'listen');
    db = await dbClient(server);
    listener = Listener.start(server.env, ['--api-key', tenant.test_api_key, '--forward-to', receiver.url('/hook'), '--base-url', server.url]);
    secret = await listener.secret();
    await eventually(async () => (listener.lines.some((l) => l.startsWith('Forwarding')) ? true : undefined), 60_000);
  });

  afterAll(async () => {
    await listener?.stop();
    await db?.end();
    await server?.stop();
    await receiver?.close();
  });

  it('the service itself refuses the local receiver as a webhook endpoint', async () => {
    const r = await http(server, 'POST', '/v1/verify/webhooks', { key: tenant.test_api_key, json: { url: receiver.url('/hook'), events: ['verification.completed'] } });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
  });

  it("forwards every event of the tenant's test sessions, each signed with the listen secret and printed as one line", async () => {
    const approved = await create();
    const declined = await create({ test_outcome: 'declined' });
    const completed = await eventually(async () => eventsOf(approved).find((e) => e.type === 'verification.completed'), 90_000);
    expect(completed).toMatchObject({ signed: true, livemode: false, data: { status: 'success', decision: 'approved', requested_tier: 'T1' } });
    expect(completed.eventIdHeader).toBe(completed.id);
    const failed = await eventually(async () => eventsOf(declined).find((e) => e.type === 'verification.failed'), 90_000);
    expect(failed).toMatchObject({ signed: true, data: { status: 'failed', decision: 'declined' } });
    // Exactly one event per session's end, and a line per event: type, id, the receiver's status, time.
    expect(eventsOf(approved)).toHaveLength(1);
    expect(eventsOf(declined)).toHaveLength(1);
    for (const e of [completed, failed]) {
      const line = await eventually(async () => listener.lines.find((l) => l.includes(e.id)));
      expect(line).toMatch(new RegExp(`${e.type.replace('.', '\\.')}\\s+${e.id}\\s+200\\s+\\d+ ms$`));
    }
  });

  it('a session the tenant withdraws from manual_review sends one verification.failed with status withdrawn', async () => {
    const id = await create({ test_outcome: 'review' });
    await eventually(async () => eventsOf(id).find((e) => e.type === 'verification.manual_review'), 90_000);
    const cancelled = await http(server, 'POST', `/v1/verify/sessions/${id}/cancel`, { key: tenant.test_api_key });
    expect(cancelled.status).toBe(200);
    const withdrawn = await eventually(async () => eventsOf(id).find((e) => e.type === 'verification.failed'), 60_000);
    expect(withdrawn).toMatchObject({ signed: true, data: { session_id: id, status: 'withdrawn', requested_tier: 'T1' } });
    expect(eventsOf(id).map((e) => e.type)).toEqual(['verification.manual_review', 'verification.failed']);
  });

  it('a session that expires sends one verification.failed with status expired (the expiry sweep runs every minute)', async () => {
    // A live session stays `created` until it expires (a live endpoint needs a public https URL: the outbox row is what it would be sent).
    const live = await http(server, 'POST', '/v1/verify/sessions', { key: tenant.live_api_key, json: { flow_id: 'default', tier: 'T1' } });
    expect(live.status).toBe(201);
    const id = live.body.id as string;
    await db.query(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
    await eventually(async () => ((await http(server, 'GET', `/v1/verify/sessions/${id}`, { key: tenant.live_api_key })).body.status === 'expired' ? true : undefined), 180_000, 1_000);
    const rows = await eventually(async () => {
      const r = await db.query(`SELECT event_id, type, payload FROM outbox_events WHERE session_id = $1 AND type LIKE 'verification.%'`, [id]);
      return r.rows.length ? r.rows : undefined;
    });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ type: 'verification.failed', payload: { session_id: id, status: 'expired', decision: null, tier: null, badges: [], requested_tier: 'T1' } });
    // Live events never reach the listener.
    expect(events().some((e) => e.id === rows[0].event_id)).toBe(false);
  });

  it('refuses a live key with a clear message, before connecting', async () => {
    const r = await cli(server.env, ['webhooks', 'listen', '--api-key', tenant.live_api_key, '--forward-to', receiver.url('/hook'), '--base-url', server.url]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/test mode only: use a sk_test_ key/);
  });
});
