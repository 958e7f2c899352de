/**
 * `npm run bench:gateway`: the gateway proxy (DECISIONS.md D18) against a local upstream that answers
 * at once, through the built server started as `npm start` starts it. Baseline of the same run:
 * the same upstream called directly.
 * - latency, one connection: p50 / p99 overhead (goal: at most 2 ms / 10 ms);
 * - throughput, 16 connections: gateway req/s as a ratio of direct (goal: at least 0.7x);
 * - a 20 MiB answer streamed 5 times: the server's RSS growth (goal: under +30 MB).
 * Rate limits are off (the social_read bucket allows 200 a minute); authentication is on.
 * BENCH_SECONDS per run (default 10).
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTenant, startServer, testEnv } from '../test/helpers/test-server';
import { measure, printTable } from './bench-support';

const BIG = 20 * 1024 * 1024;

function startUpstream(): Promise<http.Server> {
  const chunk = Buffer.alloc(64 * 1024, 1);
  const server = http.createServer((req, res) => {
    if (req.url === '/v1/social/big') {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(BIG) });
      let left = BIG / chunk.length;
      const more = () => {
        while (left > 0) {
          left--;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      return more();
    }
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const rssMb = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

async function main() {
  const upstream = await startUpstream();
  const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const server = await startServer(testEnv({ SOCIAL_UPSTREAM_URL: upstreamUrl, RATE_LIMIT_ENABLED: 'false' }));
  try {
    const tenant = await createTenant(server, 'bench-gateway');
    const auth = { authorization: `Bearer ${tenant.test_api_key}` };
    const direct = `${upstreamUrl}/v1/social/ping`;
    const viaGateway = `${server.url}/v1/social/ping`;
    // Warm both paths (JIT, kept-alive connections) before measuring.
    await measure('warm-up', { url: viaGateway, headers: auth, duration: 3 });
    const rows = [
      await measure('direct, 1 connection', { url: direct, connections: 1 }),
      await measure('gateway, 1 connection', { url: viaGateway, headers: auth, connections: 1 }),
      await measure('direct, 16 connections', { url: direct, connections: 16 }),
      await measure('gateway, 16 connections', { url: viaGateway, headers: auth, connections: 16 }),
      // What the server costs before any proxying: the same authentication and routing, answered 404 by the server itself.
      await measure('server alone (authenticated 404), 16 connections', { url: `${server.url}/v1/verify/nothing`, headers: auth, connections: 16, expectBody: undefined }),
    ];
    printTable(rows);

    const pid = server.proc.pid!;
    const before = rssMb(pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 20);
    for (let i = 0; i < 5; i++) {
      const r = await fetch(`${server.url}/v1/social/big`, { headers: auth });
      let bytes = 0;
      for await (const c of r.body!) bytes += (c as Uint8Array).length;
      if (bytes !== BIG) throw new Error(`streamed ${bytes} bytes, not ${BIG}`);
    }
    clearInterval(sampler);

    const [d1, g1, d16, g16, alone] = rows;
    console.log(
      JSON.stringify(
        {
          overheadMs: { p50: g1.p50 - d1.p50, p99: g1.p99 - d1.p99, goal: 'p50 <= 2, p99 <= 10' },
          throughputRatio: Math.round((g16.rps / d16.rps) * 100) / 100,
          throughputGoal: '>= 0.7',
          throughputRatioToServerAlone: Math.round((g16.rps / alone.rps) * 100) / 100,
          stream20MiB: { rssBeforeMb: Math.round(before), rssPeakMb: Math.round(peak), growthMb: Math.round(peak - before), goal: '< 30' },
          errors: rows.slice(0, 4).reduce((n, r) => n + r.errors + r.non2xx, 0),
        },
        null,
        2,
      ),
    );
  } finally {
    await server.stop();
    upstream.closeAllConnections();
    upstream.close();
  }
}

void main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
