import { DomainError } from '../errors';
import { assertReturnUrl } from './return-url';

const refused = (value: string, livemode: boolean) => {
  try {
    assertReturnUrl(value, 'redirect_url', livemode);
    return null;
  } catch (e) {
    return e instanceof DomainError ? e.code : 'other';
  }
};

describe('assertReturnUrl', () => {
  it('takes https in both modes, and http on loopback in test mode only', () => {
    expect(refused('https://app.example.com/done', true)).toBeNull();
    expect(refused('http://localhost:3000/done', false)).toBeNull();
    expect(refused('http://127.0.0.1/done', false)).toBeNull();
    expect(refused('http://localhost:3000/done', true)).toBe('invalid_request');
    expect(refused('http://app.example.com/done', false)).toBe('invalid_request');
  });
  it('refuses script and data URIs and anything that is not a URI', () => {
    expect(refused('javascript:alert(1)', false)).toBe('invalid_request');
    expect(refused('data:text/html,hi', false)).toBe('invalid_request');
    expect(refused('/relative', false)).toBe('invalid_request');
  });
});
