import { forwardedRequestHeaders, passedAnswerHeaders } from './gateway-headers';

describe('gateway headers', () => {
  it("sends upstream the caller's end-to-end fields but its framing, address, credentials and connection fields", () => {
    const raw = ['Host', 'evil', 'Content-Length', '3', 'Transfer-Encoding', 'chunked', 'Authorization', 'Bearer k', 'Cookie', 'a=b', 'Service-Actor', 'forged', 'Request-Id', 'mine', 'Connection', 'x-hop', 'X-Hop', '1', 'Upgrade', 'h2c', 'Expect', '100-continue', 'Accept', 'a', 'accept', 'b', 'X-Kept', 'yes'];
    expect(forwardedRequestHeaders(raw, ['x-hop'])).toEqual(['accept', 'a', 'accept', 'b', 'x-kept', 'yes']);
  });

  it("passes the upstream's answer fields but cookies, origin-wide, framing, connection and the gateway's own fields", () => {
    const raw = ['Set-Cookie', 'a=b', 'set-cookie', 'c=d', 'Clear-Site-Data', '"*"', 'Alt-Svc', 'h3=":443"', 'Content-Length', '5', 'Transfer-Encoding', 'chunked', 'Connection', 'close, X-Up-Hop', 'X-Up-Hop', '1', 'Keep-Alive', 'timeout=1', 'Request-Id', 'theirs', 'Content-Security-Policy', 'default-src *', 'Content-Type', 'text/html', 'X-Kept', 'yes'];
    expect({ ...passedAnswerHeaders(raw, (n) => n === 'request-id') }).toEqual({ 'content-type': ['text/html'], 'x-kept': ['yes'] });
  });
});
