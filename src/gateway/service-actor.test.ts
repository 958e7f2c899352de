import { generateKeyPairSync } from 'node:crypto';
import type { Scope, TenantKeyActor } from '../auth/actor';
import { GatewaySigningKey } from './gateway-signing-key';
import { SERVICE_ACTOR_REUSE_SECONDS, ServiceActorIssuer } from './service-actor';

const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString());

describe('ServiceActorIssuer.tokenFor: one token per caller and half-minute', () => {
  let now = 1_800_000_000_000;
  const issuer = new ServiceActorIssuer(GatewaySigningKey.fromPem(pem), 'https://verify.example', 'https://social.example', () => now);
  const key = (tenantId: string, livemode = false, scopes: Scope[] = ['sessions:read']): TenantKeyActor => ({ kind: 'tenant_key', tenantId, livemode, scopes, keyId: 'key_1' });

  it('gives the same caller the same token until it is SERVICE_ACTOR_REUSE_SECONDS old, then a new one', () => {
    const first = issuer.tokenFor(key('ten_a'));
    now += SERVICE_ACTOR_REUSE_SECONDS * 1000 - 1;
    expect(issuer.tokenFor(key('ten_a'))).toBe(first);
    now += 1;
    const renewed = issuer.tokenFor(key('ten_a'));
    expect(renewed).not.toBe(first);
    expect(claimsOf(renewed).jti).not.toBe(claimsOf(first).jti);
    expect(issuer.tokenFor(key('ten_a'))).toBe(renewed);
  });

  it("never gives one caller another caller's token: tenant, mode and scopes each make their own", () => {
    const a = issuer.tokenFor(key('ten_a'));
    const others = [issuer.tokenFor(key('ten_b')), issuer.tokenFor(key('ten_a', true)), issuer.tokenFor(key('ten_a', false, ['sessions:read', 'sessions:write']))];
    for (const t of others) expect(t).not.toBe(a);
    expect(others.map((t) => [claimsOf(t).tenant, claimsOf(t).livemode, claimsOf(t).scope])).toEqual([
      ['ten_b', false, 'sessions:read'],
      ['ten_a', true, 'sessions:read'],
      ['ten_a', false, 'sessions:read sessions:write'],
    ]);
    expect(claimsOf(a)).not.toHaveProperty('request_id');
  });

  it('signs anew when the clock went back, rather than trusting a token of the future', () => {
    const t = issuer.tokenFor(key('ten_c'));
    now -= 1000;
    expect(issuer.tokenFor(key('ten_c'))).not.toBe(t);
  });
});
