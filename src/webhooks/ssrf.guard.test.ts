import { blockedReason, resolveWebhookTarget, Resolver } from './ssrf.guard';

const resolvingTo =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('blockedReason', () => {
  it.each(['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '100.64.0.1', '::1', 'fc00::1', 'fd12::1', '::ffff:127.0.0.1', '::ffff:a00:1'])(
    'refuses %s in every mode, unless private targets are allowed',
    (ip) => {
      expect(blockedReason(ip)).not.toBeNull();
      expect(blockedReason(ip, true)).toBeNull();
    },
  );

  it.each([
    '169.254.169.254',
    'fe80::1',
    'fd00:ec2::254',
    '0.0.0.0',
    '::',
    '::ffff:169.254.169.254',
    '192.88.99.1',
    '192.0.2.1',
    '198.18.0.1',
    '240.0.0.1',
    '224.0.0.1',
    '255.255.255.255',
    '2002:a00:1::1',
    '2001::1',
    '2001:db8::1',
    '64:ff9b::a00:1',
    '::10.0.0.1',
    '::8.8.8.8',
    'ff02::1',
  ])('refuses %s even when private targets are allowed', (ip) => {
    expect(blockedReason(ip)).not.toBeNull();
    expect(blockedReason(ip, true)).not.toBeNull();
  });

  it.each(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '8.8.8.8', '::ffff:8.8.8.8'])('allows the public address %s', (ip) => {
    expect(blockedReason(ip)).toBeNull();
  });
});

describe('resolveWebhookTarget', () => {
  it('pins the checked address for the connection', async () => {
    const t = await resolveWebhookTarget('https://hooks.example.com/x', true, resolvingTo('93.184.216.34'));
    expect(t).toMatchObject({ address: '93.184.216.34', family: 4 });
    expect(t.url.hostname).toBe('hooks.example.com');
  });

  it('refuses a name when any of its addresses is internal (a rebinding name cannot mix them)', async () => {
    await expect(resolveWebhookTarget('https://mixed.example.com/x', true, resolvingTo('93.184.216.34', '10.0.0.7'))).rejects.toThrow(/private/);
  });

  it('refuses http, credentials and unresolvable names in live mode', async () => {
    await expect(resolveWebhookTarget('http://hooks.example.com/x', true, resolvingTo('93.184.216.34'))).rejects.toThrow(/https/);
    await expect(resolveWebhookTarget('https://u:p@hooks.example.com/x', true, resolvingTo('93.184.216.34'))).rejects.toThrow(/credentials/);
    await expect(resolveWebhookTarget('https://nowhere.invalid/x', true, async () => Promise.reject(new Error('ENOTFOUND')))).rejects.toThrow(/does not resolve/);
  });

  it('lets test-mode registration name a host that does not resolve here, but not delivery', async () => {
    await expect(resolveWebhookTarget('http://dev-box.local/x', false, async () => [], { allowUnresolved: true })).resolves.toBeDefined();
    await expect(resolveWebhookTarget('http://dev-box.local/x', false, async () => [])).rejects.toThrow(/does not resolve/);
  });
});
