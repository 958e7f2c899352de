import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { httpCrlFetcher } from './status-list-fetcher';

/**
 * A CRL distribution point is named by the credential's issuer chain, so its server is the issuer's to choose:
 * one that streams without end (chunked, no Content-Length) must cost the service at most the fetcher's cap.
 */
describe('httpCrlFetcher', () => {
  let server: http.Server;
  let sentBytes = 0;
  let url: string;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/small') return void res.end(Buffer.alloc(100, 1));
      res.writeHead(200, { 'content-type': 'application/pkix-crl' }); // chunked: no length declared
      const chunk = Buffer.alloc(64 * 1024, 7);
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) sentBytes += chunk.length;
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('cuts off a CRL that streams without end at its cap, and reads one under the cap whole', async () => {
    const fetchCrl = httpCrlFetcher(600_000, 1_000_000);
    await expect(fetchCrl(`${url}/endless`)).rejects.toThrow(/larger than the 1000000-byte limit/);
    expect(sentBytes).toBeLessThan(50_000_000); // stopped reading near the cap, not at the timeout
    expect((await fetchCrl(`${url}/small`)).length).toBe(100);
  });
});
