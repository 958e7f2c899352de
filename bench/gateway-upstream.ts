/**
 * The local upstream of `npm run bench:gateway`, run as its own process so that it neither shares an
 * event loop with the load generator nor with the server: it answers `{"ok":true}` at once, and
 * `/v1/social/big?mib=N` with N MiB (default 20) written with back-pressure. Prints its port.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeChunks } from '../test/helpers/write-chunks';

const MIB = 1024 * 1024;
const chunk = Buffer.alloc(64 * 1024, 1);

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://upstream');
  if (url.pathname === '/v1/social/big') {
    const bytes = Number(url.searchParams.get('mib') ?? 20) * MIB;
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(bytes) });
    return writeChunks(res, chunk, bytes / chunk.length);
  }
  req.resume();
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"ok":true}');
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log((server.address() as AddressInfo).port));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
