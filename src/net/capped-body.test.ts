import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BodyTooLargeError, readCappedBody } from './capped-body';

/** A server that streams `chunks` pieces of 64 KiB, chunked (no Content-Length), or declares a length. */
let server: http.Server;
let url: string;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    if (u.pathname === '/declared') return void res.writeHead(200, { 'content-length': '1000000' }).end('x'.repeat(1_000_000));
    const chunks = Number(u.searchParams.get('chunks'));
    res.writeHead(200);
    let sent = 0;
    const next = () => {
      if (sent++ >= chunks || res.destroyed) return void res.end();
      res.write(Buffer.alloc(64 * 1024, 0x61), next);
    };
    next();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => {
  server.closeAllConnections();
  server.close(() => r());
}));

it('reads a body within the limit whole', async () => {
  expect((await readCappedBody(await fetch(`${url}/?chunks=4`), 1024 * 1024)).length).toBe(4 * 64 * 1024);
});

it('stops a chunked body as soon as it passes the limit, and refuses a declared length over it before reading', async () => {
  await expect(readCappedBody(await fetch(`${url}/?chunks=100000`), 256 * 1024)).rejects.toBeInstanceOf(BodyTooLargeError);
  await expect(readCappedBody(await fetch(`${url}/declared`), 1000)).rejects.toThrow('1000000 bytes');
});
