import { createHash, randomBytes } from 'node:crypto';
import express from 'express';
import { Pool } from 'pg';

/**
 * `bench:session-create`'s baseline: a bare express + pg route doing the writes a session creation
 * cannot avoid: the session row and its outbox row, in one transaction, on the server's own tables.
 * No authentication, no validation, no flow lookup, no job, no ORM. Whatever `POST /v1/verify/sessions`
 * costs beyond this is ours. DATABASE_URL, or DB_SOCKET_DIR (the embedded database's socket);
 * TENANT_ID and FLOW_ID name a real tenant and flow (the foreign keys).
 */
const pool = new Pool(
  process.env.DB_SOCKET_DIR ? { host: process.env.DB_SOCKET_DIR, port: 5432, user: 'postgres', database: 'postgres', max: 10 } : { connectionString: process.env.DATABASE_URL, max: 10 },
);
const tenantId = process.env.TENANT_ID!;
const flowId = process.env.FLOW_ID!;
const LIFETIME_MS = 24 * 3600 * 1000;
const id = (prefix: string) => `${prefix}_${randomBytes(18).toString('base64url').slice(0, 24)}`;

const app = express();
app.use(express.json());
app.get('/healthz', (_req, res) => {
  res.json({ status: 'ok' });
});
app.post('/sessions', async (req, res) => {
  const body = req.body as { tier: string; reference_id?: string };
  const sessionId = id('vses');
  const secret = `${sessionId}_secret_${randomBytes(24).toString('base64url')}`;
  const now = new Date();
  const expires = new Date(now.getTime() + LIFETIME_MS);
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO sessions (id, tenant_id, livemode, flow_id, tier, status, reference_id, redirect_url, locale, metadata, result, client_secret_hash, created_at, updated_at, completed_at, expires_at)
       VALUES ($1, $2, false, $3, $4, 'created', $5, NULL, 'en', '{}', NULL, $6, $7, $7, NULL, $8)`,
      [sessionId, tenantId, flowId, body.tier, body.reference_id ?? null, createHash('sha256').update(secret).digest('hex'), now, expires],
    );
    await client.query(
      `INSERT INTO outbox_events (event_id, type, tenant_id, livemode, session_id, payload, created_at) VALUES ($1, 'session.status_changed', $2, false, $3, $4, $5)`,
      [id('evt'), tenantId, sessionId, JSON.stringify({ session_id: sessionId, status: 'created', previous_status: null, tier: body.tier, completed_at: null }), now],
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
  res.status(201).json({ id: sessionId, status: 'created', tier: body.tier, client_secret: secret, created_at: now.toISOString(), expires_at: expires.toISOString() });
});
const server = app.listen(Number(process.env.PORT ?? 0));
process.on('SIGTERM', () => {
  server.close();
  void pool.end().then(() => process.exit(0));
});
