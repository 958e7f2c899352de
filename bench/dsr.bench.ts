/**
 * npm run bench:dsr: the export of a user with 100,000 posts (from a local social upstream) against
 * the export of a user with none, measured in the same run on the same server: wall time from the
 * request to the finished job, and the server's RSS (sampled every 100 ms). See docs/data-rights.md.
 */
import { createUser, portalAccessToken, startOidcServer } from '../test/helpers/oidc-login';
import { TestSocialUpstream } from '../test/helpers/social-upstream';
import { http, type TestServer } from '../test/helpers/test-server';
import { rssMb } from './process-cpu';

const POSTS = Number(process.env.BENCH_DSR_POSTS ?? 100_000);

async function exportOnce(server: TestServer, token: string): Promise<{ ms: number; peakMb: number; startMb: number }> {
  const startMb = rssMb(server.proc.pid!);
  let peakMb = startMb;
  const t0 = performance.now();
  const created = await http(server, 'POST', '/v1/me/data-export', { key: token });
  for (;;) {
    peakMb = Math.max(peakMb, rssMb(server.proc.pid!));
    const list = await http(server, 'GET', '/v1/me/requests', { key: token });
    const job = (list.body.data as { id: string; status: string }[]).find((j) => j.id === created.body.id);
    if (job?.status === 'completed') break;
    if (job?.status === 'failed') throw new Error('export failed');
    await new Promise((r) => setTimeout(r, 100));
  }
  return { ms: performance.now() - t0, peakMb, startMb };
}

async function main(): Promise<void> {
  const upstream = await TestSocialUpstream.start();
  const server = await startOidcServer({ SOCIAL_UPSTREAM_URL: upstream.url });
  try {
    const tag = Date.now().toString(36);
    const small = await createUser(server, `bench-small-${tag}@example.com`);
    const big = await createUser(server, `bench-big-${tag}@example.com`);
    upstream.posts.set(small.user_id, 0);
    upstream.posts.set(big.user_id, POSTS);
    // Export is a whole-account right: the account portal's token (D20).
    const portalToken = async (email: string) => (await portalAccessToken(server, email)).tokens.access_token!;
    const baseline = await exportOnce(server, await portalToken(small.email));
    const measured = await exportOnce(server, await portalToken(big.email));
    const db = process.env.DATABASE_URL ? 'PostgreSQL server' : 'embedded database';
    console.log(`dsr export (${db}), ${POSTS.toLocaleString('en')} posts vs a user with none`);
    console.log(`  baseline (0 posts):  ${baseline.ms.toFixed(0)} ms, RSS ${baseline.startMb.toFixed(0)} -> peak ${baseline.peakMb.toFixed(0)} MB`);
    console.log(`  ${POSTS} posts:      ${measured.ms.toFixed(0)} ms, RSS ${measured.startMb.toFixed(0)} -> peak ${measured.peakMb.toFixed(0)} MB`);
    console.log(`  time ratio ${(measured.ms / baseline.ms).toFixed(2)}x; RSS growth during the big export ${(measured.peakMb - measured.startMb).toFixed(0)} MB`);
  } finally {
    await server.stop();
    await upstream.close();
  }
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
