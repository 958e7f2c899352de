/**
 * The container's HEALTHCHECK (Containerfile): GET /readyz on this process's own PORT, by node alone, so the
 * image needs no shell or curl. Exit 0 when ready, 1 otherwise (not ready, refused, or no answer in 2 s),
 * with the reason on stderr for `podman inspect`'s health log.
 */
import http from 'node:http';

const port = Number(process.env.PORT ?? 4000);
const host = process.env.HEALTHCHECK_HOST ?? '127.0.0.1';

const request = http.get({ host, port, path: '/readyz', timeout: 2_000 }, (res) => {
  res.resume();
  if (res.statusCode === 200) process.exit(0);
  process.stderr.write(`readyz answered ${res.statusCode}\n`);
  process.exit(1);
});
request.on('timeout', () => request.destroy(new Error('no answer within 2 s')));
request.on('error', (err) => {
  process.stderr.write(`readyz: ${err.message}\n`);
  process.exit(1);
});
