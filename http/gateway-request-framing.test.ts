import { requestFraming } from './gateway-request-framing';

const raw = (...lines: [string, string][]) => lines.flat();

describe('requestFraming', () => {
  it('reads a Content-Length body, a chunked body and no body', () => {
    expect(requestFraming('POST', raw(['Content-Length', '12']))).toEqual({ ok: true, body: { kind: 'length', bytes: 12 }, connectionNames: [] });
    expect(requestFraming('PATCH', raw(['Transfer-Encoding', 'Chunked']))).toEqual({ ok: true, body: { kind: 'chunked' }, connectionNames: [] });
    expect(requestFraming('GET', raw(['Content-Length', '0'], ['Connection', 'keep-alive, X-Hop']))).toEqual({ ok: true, body: { kind: 'none' }, connectionNames: ['keep-alive', 'x-hop'] });
  });

  it.each([
    ['POST', raw(['Transfer-Encoding', 'chunked'], ['Content-Length', '3'])],
    ['POST', raw(['Transfer-Encoding', 'chunked'], ['transfer-encoding', 'chunked'])],
    ['POST', raw(['Transfer-Encoding', 'gzip, chunked'])],
    ['POST', raw(['Transfer-Encoding', 'identity'])],
    ['POST', raw(['Content-Length', '3'], ['Content-Length', '3'])],
    ['POST', raw(['Content-Length', '+3'])],
    ['GET', raw(['Transfer-Encoding', 'chunked'])],
    ['get', raw(['Content-Length', '1'])],
    ['HEAD', raw(['Content-Length', '1'])],
    ['DELETE', raw(['Content-Length', '1'])],
    ['OPTIONS', raw(['Transfer-Encoding', 'chunked'])],
    ['GET', raw(['Connection', 'keep-alive, Content-Length'])],
    ['GET', raw(['Connection', 'host'])],
    ['GET', raw(['Connection', 'close'], ['Connection', 'Authorization'])],
    ['GET', raw(['Connection', 'service-actor'])],
  ])('refuses %s with %j', (method, headers) => {
    expect(requestFraming(method, headers)).toMatchObject({ ok: false });
  });
});
