import net from 'node:net';
import path from 'node:path';
import { Client } from 'pg';
import { createTenant, eventually, http, startServer, testEnv, type TestServer } from '../helpers/test-server';

/**
 * Issue #40 finding 3, the embedded database (src/db/pglite-extended-protocol.ts): every connection to
 * DATA_DIR's socket shares PGlite's one session, so how one client ends is everyone's business. A
 * client's Terminate ends its own connection only; a client that leaves mid-transaction or in the
 * middle of an extended-protocol sequence (closed, reset, or after Terminate) has its transaction
 * rolled back and its sequence ended before another client's next message; a timed-out or cancelled
 * query is that client's error. None of it ends the database process, and the server keeps working.
 */
const embedded = !process.env.DATABASE_URL;
if (!embedded) console.log('embedded-database-clients: skipped with DATABASE_URL (it is about the embedded PGlite socket)');

(embedded ? describe : describe.skip)('clients of the embedded database that leave badly', () => {
  let server: TestServer;
  let marker = 0;
  beforeAll(async () => {
    server = await startServer(testEnv());
    const c = await connect();
    await c.query('CREATE TABLE IF NOT EXISTS fuzz_departures (n int)');
    await c.end();
  });
  afterAll(async () => {
    await server?.stop();
  });

  const socketPath = () => path.join(server.env.DATA_DIR!, '.s.PGSQL.5432');
  async function connect(): Promise<Client> {
    const c = new Client({ host: server.env.DATA_DIR, port: 5432, user: 'postgres', database: 'postgres' });
    c.on('error', () => undefined); // a connection this test cuts off
    await c.connect();
    return c;
  }
  /** Another client still answers at once, sees none of the departed client's rows, and the server works. */
  async function othersUnharmed(n: number): Promise<void> {
    const other = await connect();
    try {
      expect((await other.query('SELECT count(*)::int AS n FROM fuzz_departures WHERE n = $1', [n])).rows[0].n).toBe(0);
      // Not inside someone else's transaction: this one's own commits and is seen by a third connection.
      await other.query('INSERT INTO fuzz_departures VALUES ($1)', [-n]);
      const third = await connect();
      expect((await third.query('SELECT count(*)::int AS n FROM fuzz_departures WHERE n = $1', [-n])).rows[0].n).toBe(1);
      await third.end();
    } finally {
      await other.end();
    }
    expect((await http(server, 'GET', '/healthz')).status).toBe(200);
  }
  const closedSocket = (s: net.Socket) => new Promise<void>((resolve) => (s.destroyed ? resolve() : s.once('close', () => resolve())));

  it('rolls back the transaction of a client that sends Terminate mid-transaction, and ends that connection only', async () => {
    const n = ++marker;
    const c = await connect();
    await c.query('BEGIN');
    await c.query('INSERT INTO fuzz_departures VALUES ($1)', [n]);
    // Terminate written by hand, the socket left open: the server side closes it.
    const socket = (c as unknown as { connection: { stream: net.Socket } }).connection.stream;
    socket.write(Buffer.from([0x58, 0, 0, 0, 4]));
    await closedSocket(socket);
    await othersUnharmed(n);
  });

  it('rolls back the transaction of a client whose connection closes mid-transaction (pool end, reset)', async () => {
    for (const how of ['end', 'destroy'] as const) {
      const n = ++marker;
      const c = await connect();
      await c.query('BEGIN');
      await c.query('INSERT INTO fuzz_departures VALUES ($1)', [n]);
      if (how === 'end') await c.end();
      else {
        const socket = (c as unknown as { connection: { stream: net.Socket } }).connection.stream;
        socket.destroy();
      }
      await othersUnharmed(n);
    }
  });

  it('ends the extended-protocol sequence of a client that leaves before its Sync, even a failed one', async () => {
    const n = ++marker;
    const socket = net.connect(socketPath());
    await new Promise((resolve) => socket.once('connect', resolve));
    const startup = Buffer.concat([Buffer.alloc(8), Buffer.from('user\0postgres\0database\0postgres\0\0')]);
    startup.writeInt32BE(startup.length, 0);
    startup.writeInt32BE(196608, 4);
    socket.write(startup);
    await new Promise((resolve) => socket.once('data', resolve));
    const message = (type: string, body: Buffer) => {
      const head = Buffer.alloc(5);
      head.write(type, 0, 'latin1');
      head.writeInt32BE(4 + body.length, 1);
      return Buffer.concat([head, body]);
    };
    // BEGIN; an insert; then a Parse that fails (the session now ignores all but a Sync), and no Sync.
    socket.write(message('Q', Buffer.from('BEGIN\0')));
    socket.write(message('Q', Buffer.from(`INSERT INTO fuzz_departures VALUES (${n})\0`)));
    socket.write(message('P', Buffer.concat([Buffer.from('\0SELECT no_such_column FROM fuzz_departures\0'), Buffer.from([0, 0])])));
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.destroy();
    await othersUnharmed(n);
  });

  it('answers a client with a statement timeout and one that cancels its query, and no one else notices', async () => {
    const c = await connect();
    await c.query("SET statement_timeout = '50ms'");
    // PGlite runs no timers inside a statement: the query may finish; either way it is this client's business only.
    await c.query('SELECT pg_sleep(0.5)').catch((err: Error) => expect(err.message).toMatch(/statement timeout/));
    await c.end();
    const d = await connect();
    const running = d.query('SELECT pg_sleep(1)').then(
      () => 'done',
      () => 'failed',
    );
    // A CancelRequest arrives on a connection of its own; PGlite has no backend to signal, and it must not harm anyone.
    const cancel = net.connect(socketPath());
    await new Promise((resolve) => cancel.once('connect', resolve));
    const request = Buffer.alloc(16);
    request.writeInt32BE(16, 0);
    request.writeInt32BE(80877102, 4);
    cancel.end(request);
    expect(['done', 'failed']).toContain(await running);
    await d.end();
    await othersUnharmed(++marker);
  });

  it('starts the database again when a client’s FATAL error ends its one session (idle-in-transaction timeout)', async () => {
    const tenant = await createTenant(server, 'after-fatal');
    const c = await connect();
    await c.query("SET idle_in_transaction_session_timeout = '100ms'");
    await c.query('BEGIN');
    await new Promise((resolve) => setTimeout(resolve, 500));
    await c.query('SELECT 1').catch(() => undefined);
    await c.end().catch(() => undefined);
    // Whether this PGlite ends the session or not, the server answers and writes again (after a restart if it did).
    await eventually(async () => {
      // A connection the server closed while its database restarts is one more try, not a verdict.
      const r = await http(server, 'POST', '/v1/verify/sessions', { key: tenant.test_api_key, json: { flow_id: 'default', tier: 'T1' } }).catch(() => undefined);
      return r?.status === 201 ? true : undefined;
    }, 90_000, 500);
    expect(server.proc.exitCode).toBeNull();
  });

  it('keeps serving after all of that: the server reads, writes and decides a session', async () => {
    const tenant = await createTenant(server, 'departures');
    const created = await http(server, 'POST', '/v1/verify/sessions', { key: tenant.test_api_key, json: { flow_id: 'default', tier: 'T1' } });
    expect(created.status).toBe(201);
    const decided = await eventually(async () => {
      const r = await http(server, 'GET', `/v1/verify/sessions/${created.body.id}`, { key: tenant.test_api_key });
      return ['success', 'failed'].includes(r.body.status) ? r.body : undefined;
    }, 60_000);
    expect(decided.status).toBe('success');
    expect(server.proc.exitCode).toBeNull();
  });
});
