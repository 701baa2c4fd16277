/**
 * The URL rules of webhook endpoints (contract §12), checked when an endpoint is created or changed and
 * again before every delivery (a name may resolve elsewhere by then): `https://`, at most 2,048
 * characters, and a host none of whose addresses is loopback, private, link-local, multicast,
 * unspecified or a cloud metadata address. The local stage also accepts `http://localhost` and
 * `http://127.0.0.1` (any port), so a receiver on the developer's machine can be tried.
 *
 * Names are resolved through a `Resolver` the caller may replace: the tests resolve names with a stub
 * they control, and check IP literals, so a refusal never needs a connection to any address.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { config } from '../config';

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

const blocked = new BlockList();
// IPv4: unspecified, private (RFC 1918, shared CGNAT space), loopback, link-local (with the cloud
// metadata address 169.254.169.254), IETF protocol assignments, multicast, reserved and broadcast.
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
// IPv6: unspecified and loopback, IPv4-mapped (judged by their IPv4 address below), unique local (with
// AWS's metadata address fd00:ec2::254), link-local, multicast.
blocked.addAddress('::', 'ipv6');
blocked.addAddress('::1', 'ipv6');
for (const [network, prefix] of [
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** Whether an address may receive deliveries: a public unicast one. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !blocked.check(address, 'ipv4');
  if (family !== 6) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isPublicAddress(mapped[1]!);
  return !blocked.check(address, 'ipv6');
}

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
  if (text.length > MAX_URL_LENGTH) throw new RefusedUrl(`must be at most ${MAX_URL_LENGTH} characters`);
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
  const addresses = isIP(host) ? [host] : await resolveOrRefuse(host, rules.resolve);
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) {
    throw new RefusedUrl(
      'must not resolve to a loopback, private, link-local, multicast or metadata address',
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
