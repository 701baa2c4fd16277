/**
 * The URL rules of webhook endpoints (contract §12), checked without any connection: IP literals, and
 * names resolved by a stub this test controls (it records what it was asked).
 */
import {
  checkUrl,
  IPV4_SPECIAL_RANGES,
  IPV6_SPECIAL_RANGES,
  isPublicAddress,
  RefusedUrl,
  type UrlRules,
} from '../../lib/webhooks/url';

const answers: Record<string, string[]> = {
  'hooks.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'metadata.example.com': ['169.254.169.254'],
  'mixed.example.com': ['93.184.216.34', '10.1.2.3'],
  'six.example.com': ['fd00:ec2::254'],
  'nothing.example.com': [],
  'nat64.example.com': ['64:ff9b::a9fe:a9fe'],
};
const PUBLIC_ONLY = 'must resolve only to public unicast addresses';
const PORTS = 'must use port 443 or a port from 1024 to 65535';
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
    ['8.8.8.8'],
    ['172.32.0.1'],
    ['100.128.0.1'],
    ['192.0.1.255'],
    ['198.20.0.1'],
    ['223.255.255.254'],
    ['2001:4860:4860::8888'],
    ['2606:2800:220:1:248:1893:25c8:1946'],
    ['2001:200::1'],
    ['3fff:1000::1'],
  ])('%s is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  // Each range of the IANA special-purpose registries (and multicast): its first, a middle and its last
  // address, by the table the rules use, so no row can be left out of the check.
  it.each(
    IPV4_SPECIAL_RANGES.map(([network, prefix, what]) => [`${network}/${prefix}`, what, network, prefix]),
  )('IPv4 %s (%s) is refused, first to last address', (_, __, network, prefix) => {
    const first = ipv4ToNumber(network as string);
    const size = 2 ** (32 - (prefix as number));
    for (const n of [first, first + Math.floor(size / 2) + 1, first + size - 1]) {
      expect(isPublicAddress(numberToIpv4(n))).toBe(false);
    }
    expect(isPublicAddress(numberToIpv4(first - 1))).toBe(!isSpecial(first - 1));
  });

  it.each(IPV6_SPECIAL_RANGES.map(([network, prefix, what]) => [`${network}/${prefix}`, what, network]))(
    'IPv6 %s (%s) is refused',
    (_, __, network) => {
      expect(isPublicAddress(network)).toBe(false);
      expect(isPublicAddress(`${network}1`)).toBe(false);
    },
  );

  it.each([
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:8.8.8.8', 'IPv4-mapped, even of a public address (::ffff:0:0/96)'],
    ['::127.0.0.1', 'IPv4-compatible loopback ([::127.0.0.1])'],
    ['::8.8.8.8', 'IPv4-compatible (::/96)'],
    ['::ffff:0:7f00:1', 'IPv4-translated (::ffff:0:0:0/96)'],
    ['64:ff9b::7f00:1', 'NAT64 of 127.0.0.1 (64:ff9b::/96)'],
    ['64:ff9b::808:808', 'NAT64 of a public address (64:ff9b::/96)'],
    ['64:ff9b:1::a00:1', 'local-use NAT64 (64:ff9b:1::/48)'],
    ['100::1', 'discard-only (100::/64)'],
    ['2001::1', 'Teredo (2001::/32)'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['2001:2::1', 'benchmarking (2001:2::/48)'],
    ['2001:db8::1', 'documentation (2001:db8::/32)'],
    ['2002:7f00:1::1', '6to4 of 127.0.0.1 (2002::/16)'],
    ['2002:808:808::1', '6to4 of a public address (2002::/16)'],
    ['3fff::1', 'documentation (3fff::/20)'],
    ['5f00::1', 'SRv6 SIDs (5f00::/16)'],
    ['fc00::1', 'unique local (fc00::/7)'],
    ['fd00:ec2::254', 'unique local: the AWS metadata address'],
    ['fe80::1', 'link-local (fe80::/10)'],
    ['febf::1', 'link-local, last block'],
    ['fec0::1', 'site-local (fec0::/10)'],
    ['ff02::1', 'multicast (ff00::/8)'],
    ['4000::1', 'not global unicast (outside 2000::/3)'],
    ['not an address', 'not an address'],
  ])('%s (%s) is refused', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});

const ipv4ToNumber = (ip: string) => ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
const numberToIpv4 = (n: number) => [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
const isSpecial = (n: number) =>
  n < 0 ||
  IPV4_SPECIAL_RANGES.some(([network, prefix]) => {
    const first = ipv4ToNumber(network);
    return n >= first && n < first + 2 ** (32 - prefix);
  });

describe('checkUrl', () => {
  beforeEach(() => (asked.length = 0));

  it('accepts https to a name whose every address is public', async () => {
    await expect(checkUrl('https://hooks.example.com/in?x=1', stub)).resolves.toBeInstanceOf(URL);
    expect(asked).toEqual(['hooks.example.com']);
  });

  it.each([
    'https://hooks.example.com:443/in',
    'https://hooks.example.com:1024/in',
    'https://hooks.example.com:8443/in',
    'https://hooks.example.com:65535/in',
    'https://[2606:2800:220:1:248:1893:25c8:1946]:8443/in',
  ])('accepts %s (port 443 or 1024–65535)', async (url) => {
    await expect(checkUrl(url, stub)).resolves.toBeInstanceOf(URL);
  });

  it.each([
    ['http://hooks.example.com/in', 'must be an https:// URL'],
    ['ftp://hooks.example.com/in', 'must be an https:// URL'],
    ['not a url', 'must be an absolute https:// URL'],
    [`https://hooks.example.com/${'a'.repeat(2048)}`, 'must be at most 2048 characters'],
    ['https://user:pw@hooks.example.com/', 'must not carry a user name or password'],
    ['https://10.0.0.1/hook', PUBLIC_ONLY],
    ['https://127.0.0.1/hook', PUBLIC_ONLY],
    ['https://0x7f.1/hook', PUBLIC_ONLY],
    ['https://2130706433/hook', PUBLIC_ONLY],
    ['https://[::1]/hook', PUBLIC_ONLY],
    ['https://[::127.0.0.1]/hook', PUBLIC_ONLY],
    ['https://[::ffff:127.0.0.1]/hook', PUBLIC_ONLY],
    ['https://[64:ff9b::127.0.0.1]/hook', PUBLIC_ONLY],
    ['https://[2002:7f00:1::]/hook', PUBLIC_ONLY],
    ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook', PUBLIC_ONLY],
    ['https://[fe80::1%25eth0]/hook', 'must be an absolute https:// URL'],
    ['https://169.254.169.254/latest/meta-data', PUBLIC_ONLY],
    ['https://255.255.255.255/hook', PUBLIC_ONLY],
    ['https://metadata.example.com/', PUBLIC_ONLY],
    ['https://mixed.example.com/', PUBLIC_ONLY],
    ['https://six.example.com/', PUBLIC_ONLY],
    ['https://nat64.example.com/', PUBLIC_ONLY],
    ['https://nothing.example.com/', PUBLIC_ONLY],
    ['https://hooks.example.com:80/in', PORTS],
    ['https://hooks.example.com:22/in', PORTS],
    ['https://hooks.example.com:0/in', PORTS],
    ['https://hooks.example.com:444/in', PORTS],
    ['https://hooks.example.com:1023/in', PORTS],
    ['https://hooks.example.com:65536/in', 'must be an absolute https:// URL'],
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
