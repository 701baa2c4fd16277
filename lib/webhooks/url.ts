/**
 * The URL rules of webhook endpoints (contract §12), checked when an endpoint is created or changed and
 * again before every delivery (a name may resolve elsewhere by then): `https://`, at most 2,048
 * characters, port 443 or 1024–65535, and a host that resolves only to public unicast addresses — none
 * in a range of IANA's IPv4 or IPv6 special-purpose address registries (or multicast, or the deprecated
 * site-local and IPv4-compatible IPv6 forms the contract names). The local stage also accepts
 * `http://localhost` and `http://127.0.0.1` (any port), so a receiver on the developer's machine can be
 * tried.
 *
 * Addresses are judged by node's own `BlockList` after the WHATWG URL parser has put the host in its
 * canonical form (`0x7f.1` is `127.0.0.1`, `[::127.0.0.1]` is `[::7f00:1]`). An IPv6 address must be
 * in the global unicast block `2000::/3` and in none of its special ranges: so every form that carries
 * an IPv4 address outside it (mapped, compatible, translated) is refused whatever that address is, and
 * the ones inside it (NAT64, 6to4, Teredo) are listed.
 *
 * Names are resolved through a `Resolver` the caller may replace: the tests resolve names with a stub
 * they control, and check IP literals, so a refusal never needs a connection to any address.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { config } from '../config';
import { characterCount } from '../http/schemas';

export const MAX_URL_LENGTH = 2048;

/** A host name's addresses (IPv4 or IPv6 text). */
export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** The URL rules of this stage (the local stage accepts its own machine); tests pass their own resolver. */
export const stageUrlRules = (): UrlRules => ({
  resolve: systemResolver,
  allowLocal: config.dynamodbEndpoint() !== undefined,
});

/** Why a URL is refused: the detail of a 400 on `url`, or the reason a delivery was not attempted. */
export class RefusedUrl extends Error {
  override readonly name = 'RefusedUrl';
}

/** IANA IPv4 Special-Purpose Address Registry (and multicast): [network, prefix, what it is]. */
export const IPV4_SPECIAL_RANGES = [
  ['0.0.0.0', 8, '"this network"'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared address space (CGNAT)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (with the cloud metadata address 169.254.169.254)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation (TEST-NET-1)'],
  ['192.31.196.0', 24, 'AS112-v4'],
  ['192.52.193.0', 24, 'AMT'],
  ['192.88.99.0', 24, 'deprecated 6to4 relay anycast'],
  ['192.168.0.0', 16, 'private'],
  ['192.175.48.0', 24, 'direct delegation AS112 service'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation (TEST-NET-2)'],
  ['203.0.113.0', 24, 'documentation (TEST-NET-3)'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved (with the limited broadcast 255.255.255.255)'],
] as const;

/**
 * IANA IPv6 Special-Purpose Address Registry entries inside `2000::/3` (those outside it — `::1`, `::`,
 * `::ffff:0:0/96`, `::/96`, `64:ff9b::/96`, `64:ff9b:1::/48`, `100::/64`, `5f00::/16`, `fc00::/7`,
 * `fe80::/10`, `fec0::/10`, `ff00::/8` — are refused as not global unicast).
 */
export const IPV6_SPECIAL_RANGES = [
  ['2001::', 23, 'IETF protocol assignments (with Teredo 2001::/32, benchmarking, AMT, ORCHID)'],
  ['2001:db8::', 32, 'documentation'],
  ['2002::', 16, '6to4'],
  ['2620:4f:8000::', 48, 'direct delegation AS112 service'],
  ['3fff::', 20, 'documentation'],
] as const;

const special = new BlockList();
for (const [network, prefix] of IPV4_SPECIAL_RANGES) special.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of IPV6_SPECIAL_RANGES) special.addSubnet(network, prefix, 'ipv6');
const globalUnicast = new BlockList();
globalUnicast.addSubnet('2000::', 3, 'ipv6');

/** Whether an address may receive deliveries: a public unicast one. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !special.check(address, 'ipv4');
  // An IPv4-mapped address is outside 2000::/3 (node's BlockList would also match it to IPv4 rules).
  return family === 6 && globalUnicast.check(address, 'ipv6') && !special.check(address, 'ipv6');
}

/** §12: the default https port, or one of the unprivileged ports. */
export const isAllowedPort = (port: number): boolean => port === 443 || (port >= 1024 && port <= 65535);

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1']);

export interface UrlRules {
  resolve: Resolver;
  /** The local stage: `http://localhost` and `http://127.0.0.1` are accepted too. */
  allowLocal: boolean;
}

/**
 * The URL as given when it may receive deliveries; else RefusedUrl saying why. Names are resolved, and
 * every address they resolve to must be public.
 */
export async function checkUrl(text: string, rules: UrlRules): Promise<URL> {
  if (characterCount(text) > MAX_URL_LENGTH)
    throw new RefusedUrl(`must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RefusedUrl('must be an absolute https:// URL');
  }
  if (url.username || url.password) throw new RefusedUrl('must not carry a user name or password');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (rules.allowLocal && LOCAL_HOSTS.has(host) && (url.protocol === 'http:' || url.protocol === 'https:')) {
    return url;
  }
  if (url.protocol !== 'https:') throw new RefusedUrl('must be an https:// URL');
  if (url.port !== '' && !isAllowedPort(Number(url.port))) {
    throw new RefusedUrl('must use port 443 or a port from 1024 to 65535');
  }
  const addresses = isIP(host) ? [host] : await resolveOrRefuse(host, rules.resolve);
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) {
    throw new RefusedUrl(
      'must resolve only to public unicast addresses (no loopback, private, link-local, multicast, ' +
        'documentation, reserved or other special-purpose address)',
    );
  }
  return url;
}

async function resolveOrRefuse(host: string, resolve: Resolver): Promise<string[]> {
  try {
    return await resolve(host);
  } catch {
    throw new RefusedUrl('must name a host that resolves');
  }
}
