/**
 * The URL rules of webhook endpoints (contract §12), checked without any connection: IP literals, and
 * names resolved by a stub this test controls (it records what it was asked).
 */
import { checkUrl, isPublicAddress, RefusedUrl, type UrlRules } from '../../lib/webhooks/url';

const answers: Record<string, string[]> = {
  'hooks.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'metadata.example.com': ['169.254.169.254'],
  'mixed.example.com': ['93.184.216.34', '10.1.2.3'],
  'six.example.com': ['fd00:ec2::254'],
  'nothing.example.com': [],
};
const asked: string[] = [];
const stub: UrlRules = {
  allowLocal: false,
  resolve: async (host) => {
    asked.push(host);
    const found = answers[host];
    if (!found) throw new Error('ENOTFOUND');
    return found;
  },
};

describe('public addresses', () => {
  it.each([
    ['127.0.0.1', false],
    ['10.0.0.8', false],
    ['172.16.5.4', false],
    ['172.32.0.1', true],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['8.8.8.8', true],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fd00:ec2::254', false],
    ['ff02::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:8.8.8.8', true],
    ['2001:4860:4860::8888', true],
    ['not an address', false],
  ])('%s → %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe('checkUrl', () => {
  beforeEach(() => (asked.length = 0));

  it('accepts https to a name whose every address is public', async () => {
    await expect(checkUrl('https://hooks.example.com/in?x=1', stub)).resolves.toBeInstanceOf(URL);
    expect(asked).toEqual(['hooks.example.com']);
  });

  it.each([
    ['http://hooks.example.com/in', 'must be an https:// URL'],
    ['ftp://hooks.example.com/in', 'must be an https:// URL'],
    ['not a url', 'must be an absolute https:// URL'],
    [`https://hooks.example.com/${'a'.repeat(2048)}`, 'must be at most 2048 characters'],
    ['https://user:pw@hooks.example.com/', 'must not carry a user name or password'],
    ['https://10.0.0.1/hook', 'must not resolve'],
    ['https://127.0.0.1/hook', 'must not resolve'],
    ['https://[::1]/hook', 'must not resolve'],
    ['https://169.254.169.254/latest/meta-data', 'must not resolve'],
    ['https://metadata.example.com/', 'must not resolve'],
    ['https://mixed.example.com/', 'must not resolve'],
    ['https://six.example.com/', 'must not resolve'],
    ['https://nothing.example.com/', 'must not resolve'],
    ['https://unknown.example.com/', 'must name a host that resolves'],
    ['http://localhost:8080/hook', 'must be an https:// URL'],
  ])('refuses %s', async (url, reason) => {
    const refusal = checkUrl(url, stub);
    await expect(refusal).rejects.toBeInstanceOf(RefusedUrl);
    await expect(refusal).rejects.toThrow(reason);
  });

  it('accepts http://localhost and http://127.0.0.1 on the local stage only, without resolving', async () => {
    const local = { ...stub, allowLocal: true };
    await expect(checkUrl('http://localhost:8080/hook', local)).resolves.toBeInstanceOf(URL);
    await expect(checkUrl('http://127.0.0.1:9/hook', local)).resolves.toBeInstanceOf(URL);
    await expect(checkUrl('http://10.0.0.1/hook', local)).rejects.toThrow('must be an https:// URL');
    expect(asked).toEqual([]);
  });
});
