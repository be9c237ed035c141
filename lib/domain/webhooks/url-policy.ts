import { isIP } from 'node:net';

/**
 * Where a webhook may point. Deployed, only `https://` to a public address: a URL naming, or resolving
 * to, a loopback, private, link-local, shared or metadata address would let a caller make the service
 * call into its own network (SSRF). The check runs at create and update, on the URL's literal host and
 * its DNS answer, and again at every delivery on the address actually connected to, because a name's
 * answer can change between the two (DNS rebinding). Locally (`npm start`) `http://` to the loopback
 * is allowed as well, so that a receiver on the same machine can be used.
 */

export const MAX_WEBHOOK_URL_LENGTH = 2048;

export interface UrlPolicy {
  /** Local runs only: `http://` and `https://` to loopback hosts are allowed. */
  allowLoopback: boolean;
}

/** IPv4 ranges refused as destinations: [first address, prefix length]. */
const REFUSED_V4: readonly [string, number][] = [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, the cloud metadata service (169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];

const v4Number = (address: string) =>
  address.split('.').reduce((value, octet) => value * 256 + Number(octet), 0);

function isRefusedV4(address: string): boolean {
  const value = v4Number(address);
  return REFUSED_V4.some(([first, prefix]) => {
    const size = 2 ** (32 - prefix);
    const start = v4Number(first);
    return value >= start && value < start + size;
  });
}

/** The IPv4 address an IPv6 address embeds (mapped `::ffff:a.b.c.d` or NAT64 `64:ff9b::`), if any. */
function embeddedV4(address: string): string | undefined {
  const dotted = /(?:^::ffff:|^64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (dotted) return dotted[1];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return undefined;
  const [high, low] = [Number.parseInt(hex[1] ?? '0', 16), Number.parseInt(hex[2] ?? '0', 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

function isRefusedV6(address: string): boolean {
  const lower = address.toLowerCase();
  const v4 = embeddedV4(lower);
  if (v4) return isRefusedV4(v4);
  if (lower === '::' || lower === '::1') return true;
  // Unique local (fc00::/7), link-local (fe80::/10), site-local (fec0::/10), multicast (ff00::/8),
  // the AWS metadata service's IPv6 address (fd00:ec2::254, inside fc00::/7).
  return /^(f[cd]|fe[89ab]|fe[c-f]|ff)/.test(lower);
}

/** Whether a connection to `address` (an IP literal) would reach into a private or special network. */
function isRefusedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return isRefusedV4(address);
  if (family === 6) return isRefusedV6(address);
  return true;
}

const isLoopbackHost = (host: string) =>
  host === 'localhost' || host === '[::1]' || (isIP(host) === 4 && host.startsWith('127.'));

/** A URL's host without IPv6 brackets. */
export const bareHost = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/**
 * The problem with `text` as a webhook URL by its text alone, or undefined when it may be stored once
 * its name resolves to allowed addresses (`refusedResolution`).
 */
export function urlProblem(text: string, policy: UrlPolicy): string | undefined {
  if (text.length > MAX_WEBHOOK_URL_LENGTH) return `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`;
  const url = URL.parse(text);
  if (!url) return 'must be an absolute URL';
  if (url.username || url.password) return 'must not carry credentials';
  const loopback = isLoopbackHost(url.hostname);
  if (policy.allowLoopback && loopback && (url.protocol === 'http:' || url.protocol === 'https:'))
    return undefined;
  if (url.protocol !== 'https:')
    return policy.allowLoopback ? 'must be https:// (or http:// to the loopback)' : 'must be https://';
  const host = bareHost(url);
  if (loopback || (isIP(host) !== 0 && isRefusedAddress(host)))
    return 'must not point at a loopback, private, link-local or metadata address';
  return undefined;
}

/** Whether the addresses a URL's host resolved to may be connected to (none refused, at least one). */
export function refusedResolution(addresses: readonly string[], policy: UrlPolicy): boolean {
  if (addresses.length === 0) return true;
  return addresses.some((address) => {
    if (policy.allowLoopback && (address === '::1' || address.startsWith('127.'))) return false;
    return isRefusedAddress(address);
  });
}
