import express from 'express';
import { Pool } from 'pg';

/**
 * The benchmark's baseline: a bare express route doing the same primary-key SELECT with pg, no
 * auth, no GraphQL, no mapping. Whatever the real routes cost beyond this is ours.
 */
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = express();
app.get('/healthz', (_req, res) => {
  res.json({ status: 'ok' });
});
app.get('/sessions/:id', async (req, res) => {
  const { rows } = await pool.query('SELECT * FROM sessions WHERE id = $1', [req.params.id]);
  if (!rows[0]) return res.status(404).json({ error: 'not found' });
  res.json(rows[0]);
});
const server = app.listen(Number(process.env.PORT ?? 0));
process.on('SIGTERM', () => {
  server.close();
  void pool.end().then(() => process.exit(0));
});
