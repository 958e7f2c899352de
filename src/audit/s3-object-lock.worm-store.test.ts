import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { S3ObjectLockWormStore } from './s3-object-lock.worm-store';

/**
 * The S3 adapter against a local HTTP server that answers like S3: the bodies and headers are the
 * examples of AWS's S3 API reference (PutObject's sample response, the PreconditionFailed error of
 * conditional writes, GetObject and the NoSuchKey error), so the SDK parses real S3 answers. The
 * server records each request, and the test checks what S3 would enforce: Object Lock in
 * compliance mode with a retain-until date, If-None-Match, the checksum and a SigV4 signature.
 */
describe('S3ObjectLockWormStore', () => {
  type Seen = { method: string; url: string; headers: http.IncomingHttpHeaders; body: Buffer };
  const seen: Seen[] = [];
  const objects = new Map<string, Buffer>();
  let server: http.Server;
  let endpoint: string;

  /** The payload of an `aws-chunked` body (the SDK may stream with a trailing checksum). */
  function decodeBody(headers: http.IncomingHttpHeaders, raw: Buffer): Buffer {
    if (!String(headers['content-encoding'] ?? '').includes('aws-chunked')) return raw;
    const out: Buffer[] = [];
    let at = 0;
    for (;;) {
      const eol = raw.indexOf('\r\n', at);
      const size = parseInt(raw.subarray(at, eol).toString('latin1').split(';')[0], 16);
      if (!size) break;
      out.push(raw.subarray(eol + 2, eol + 2 + size));
      at = eol + 2 + size + 2;
    }
    return Buffer.concat(out);
  }

  const xmlError = (code: string, message: string, extra = '') =>
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message>${extra}<RequestId>4442587FB7D0A2F9</RequestId><HostId>Uuag1LuByRx9e6j5Onimru9pO4ZVKnJ2Qz7/C1NPcfTWAtRPfTaOFg==</HostId></Error>`;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = decodeBody(req.headers, Buffer.concat(chunks));
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        const key = decodeURIComponent(new URL(req.url!, 'http://x').pathname);
        res.setHeader('x-amz-id-2', 'LriYPLdmOdAiIfgSm/F1YsViT1LW94/xUQxMsF7xiEb1a0wiIOIxl+zbwZ163pt7');
        res.setHeader('x-amz-request-id', '0A49CE4060975EAC');
        res.setHeader('Server', 'AmazonS3');
        if (req.method === 'PUT') {
          if (req.headers['if-none-match'] === '*' && objects.has(key)) {
            res.writeHead(412, { 'content-type': 'application/xml' });
            return res.end(xmlError('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', '<Condition>If-None-Match</Condition>'));
          }
          objects.set(key, body);
          res.writeHead(200, { ETag: '"1b2cf535f27731c974343645a3985328"', 'x-amz-version-id': '43jfkodU8493jnFJD9fjj3HHNVfdsQUIFDNsidf038jfdsjGFDSIRp', 'Content-Length': '0' });
          return res.end();
        }
        if (req.method === 'GET') {
          const found = objects.get(key);
          if (!found) {
            res.writeHead(404, { 'content-type': 'application/xml' });
            return res.end(xmlError('NoSuchKey', 'The resource you requested does not exist', `<Resource>${key}</Resource>`));
          }
          res.writeHead(200, { 'Content-Type': 'application/x-ndjson', 'Content-Length': String(found.length), ETag: '"fba9dede5f27731c9771645a39863328"', 'Last-Modified': 'Wed, 12 Oct 2009 17:50:00 GMT' });
          return res.end(found);
        }
        res.writeHead(405);
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  const store = () =>
    new S3ObjectLockWormStore({
      bucket: 'audit-archive',
      region: 'eu-central-1',
      prefix: 'audit/',
      retentionYears: 10,
      endpoint,
      credentials: { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' },
      now: () => new Date('2026-03-04T00:30:00.000Z'),
    });

  it('writes a segment with Object Lock in compliance mode, a retain-until date, If-None-Match, a checksum and a SigV4 signature', async () => {
    const body = Buffer.from('{"a":1}\n{"type":"head"}\n');
    expect(await store().put('tenant.ten_1.live/2026-03-03-000000000001.ndjson', body)).toBe('written');
    const put = seen.find((s) => s.method === 'PUT')!;
    expect(put.url.split('?')[0]).toBe('/audit-archive/audit/tenant.ten_1.live/2026-03-03-000000000001.ndjson');
    expect(put.headers['x-amz-object-lock-mode']).toBe('COMPLIANCE');
    expect(new Date(String(put.headers['x-amz-object-lock-retain-until-date'])).toISOString()).toBe('2036-03-04T00:30:00.000Z');
    expect(put.headers['if-none-match']).toBe('*');
    expect(put.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\/\d{8}\/eu-central-1\/s3\/aws4_request, SignedHeaders=[^,]*if-none-match[^,]*x-amz-object-lock-mode[^,]*, Signature=[0-9a-f]{64}$/);
    expect(put.headers['x-amz-checksum-sha256']).toBe(createHash('sha256').update(body).digest('base64'));
    expect(put.body.equals(body)).toBe(true);
  });

  it('answers exists, without replacing anything, when S3 refuses the write with 412 PreconditionFailed', async () => {
    const key = 'service/2026-03-03-000000000001.ndjson';
    expect(await store().put(key, Buffer.from('first\n'))).toBe('written');
    expect(await store().put(key, Buffer.from('second\n'))).toBe('exists');
    expect((await store().get(key))!.toString()).toBe('first\n');
  });

  it('reads a missing key as null (S3 NoSuchKey)', async () => {
    expect(await store().get('service/none.ndjson')).toBeNull();
  });
});
