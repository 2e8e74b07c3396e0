/**
 * Outbound policy for HTTP servers: which hosts a caller may reach, checked on the first request
 * and on every redirect hop (and on the endpoint a legacy SSE server names). Plain `http://` is
 * refused except to loopback, and addresses in private ranges are refused after DNS resolution
 * (SSRF), unless the policy allows them. Loopback is allowed by default: local servers and tests
 * listen there, and reaching it needs a process on this machine already.
 */
import type { LookupAddress } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";
import type { WireFault } from "../failure/wire-fault.js";
import { nodeDns } from "./lazy-builtins.js";

/** The policy, as `mcp.json` (`outbound`) and `createHttpCaller({ outbound })` take it. */
export interface OutboundPolicy {
  /** Hosts that may be reached (exact names, `*.example.com` for subdomains, optional `:port`). Absent: any host. */
  readonly allowedHosts?: readonly string[];
  /** Allow plain `http://` to hosts other than loopback. Default false. */
  readonly allowInsecureHttp?: boolean;
  /** Allow private, link-local, CGNAT, unique-local and other non-public addresses. Default false. */
  readonly allowPrivateNetworks?: boolean;
  /** Allow loopback (127.0.0.0/8, ::1). Default true. */
  readonly allowLoopback?: boolean;
}

/** Copies a checked policy field by field, so nothing else from a file or design rides along. */
export function copyOutboundPolicy(o: OutboundPolicy): OutboundPolicy {
  return {
    ...(o.allowedHosts !== undefined ? { allowedHosts: [...o.allowedHosts] } : {}),
    ...(o.allowInsecureHttp !== undefined ? { allowInsecureHttp: o.allowInsecureHttp } : {}),
    ...(o.allowPrivateNetworks !== undefined ? { allowPrivateNetworks: o.allowPrivateNetworks } : {}),
    ...(o.allowLoopback !== undefined ? { allowLoopback: o.allowLoopback } : {}),
  };
}

/** A compiled policy: a URL check for each hop and a DNS lookup that refuses forbidden addresses. */
export interface OutboundGuard {
  /** The fault that refuses `url`, or undefined when it may be requested. */
  check(url: URL): WireFault | undefined;
  /** A `net` lookup that resolves and then refuses addresses the policy forbids (so DNS cannot point around it). */
  readonly lookup: OutboundLookup;
}

/**
 * A `net`-style lookup `(hostname, options, callback)`. Declared loosely, not as `net.LookupFunction`,
 * because the auth types reach this file from the root entry, whose typings must not need `@types/node`.
 */
// biome-ignore lint/suspicious/noExplicitAny: stands for node's LookupFunction options and callback without naming node types
export type OutboundLookup = (hostname: string, options: any, callback: any) => void;

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

/** Not public: RFC 1918, link-local (cloud metadata at 169.254.169.254), CGNAT, this-network, multicast, reserved, documentation, ULA, site-local. */
const PRIVATE = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  PRIVATE.addSubnet(net, bits, "ipv4");
for (const [net, bits] of [
  ["::", 128],
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const)
  PRIVATE.addSubnet(net, bits, "ipv6");

/** IPv4 embedded in an IPv6 address that routes to it: `::ffff:a.b.c.d` (mapped), `64:ff9b::a.b.c.d` (NAT64). */
function embeddedIpv4(address: string): string | undefined {
  const m = /^(?:::ffff:|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address);
  if (!m) return undefined;
  if (m[1]) return m[1];
  const hi = Number.parseInt(m[2] as string, 16);
  const lo = Number.parseInt(m[3] as string, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** `loopback`, `private` or `public` for an IP address (v4 or v6; embedded v4 is judged as v4). */
export function addressClass(address: string): "loopback" | "private" | "public" {
  const bare = address.startsWith("[") ? address.slice(1, -1) : address;
  const v4 = isIP(bare) === 6 ? embeddedIpv4(bare.toLowerCase()) : undefined;
  const ip = v4 ?? bare;
  const family = isIP(ip) === 4 ? "ipv4" : "ipv6";
  if (LOOPBACK.check(ip, family)) return "loopback";
  if (PRIVATE.check(ip, family)) return "private";
  return "public";
}

function hostMatches(pattern: string, url: URL): boolean {
  const p = pattern.trim().toLowerCase();
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, "");
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(p);
  if (!m) return p === host; // a bare IPv6 address
  const name = (m[1] as string).replace(/^\[|\]$/g, "");
  if (m[2] !== undefined && m[2] !== (url.port || (url.protocol === "https:" ? "443" : "80"))) return false;
  if (name.startsWith("*.")) return host.endsWith(name.slice(1)) && host.length > name.length - 1;
  return host === name;
}

const refuse = (message: string): WireFault => ({ type: "transport", code: "EPOLICY", message });

/** Compiles a policy. Without one, the defaults apply (https or loopback only, no private addresses). */
export function createOutboundGuard(policy: OutboundPolicy = {}): OutboundGuard {
  const allowLoopback = policy.allowLoopback !== false;
  const allowed = (cls: "loopback" | "private" | "public") =>
    cls === "public" || (cls === "loopback" ? allowLoopback : policy.allowPrivateNetworks === true);
  const why = (cls: "loopback" | "private" | "public") =>
    cls === "loopback"
      ? "a loopback address (allowLoopback is false)"
      : "a private or non-public address (set allowPrivateNetworks to allow it)";

  function check(url: URL): WireFault | undefined {
    const host = url.hostname.replace(/^\[|\]$/g, "");
    if (policy.allowedHosts && !policy.allowedHosts.some((p) => hostMatches(p, url))) {
      return refuse(`${url.origin} is not in allowedHosts`);
    }
    const literal = isIP(host) !== 0 ? addressClass(host) : undefined;
    const loopbackName = host === "localhost" || host.endsWith(".localhost");
    if (literal && !allowed(literal)) return refuse(`${url.origin} is ${why(literal)}`);
    if (url.protocol === "http:" && policy.allowInsecureHttp !== true && literal !== "loopback" && !loopbackName) {
      return refuse(`${url.origin}: plain http:// is refused except to loopback (use https:// or set allowInsecureHttp)`);
    }
    return undefined;
  }

  const lookup: LookupFunction = (hostname, options, callback) => {
    nodeDns().lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, "", 0);
        return;
      }
      const list = addresses as LookupAddress[];
      const bad = list.find((a) => !allowed(addressClass(a.address)));
      if (bad) {
        const refused = Object.assign(new Error(`${hostname} resolves to ${bad.address}, ${why(addressClass(bad.address))}`), {
          code: "EPOLICY",
        });
        callback(refused, "", 0);
        return;
      }
      if (options.all) callback(null, list);
      else callback(null, (list[0] as LookupAddress).address, (list[0] as LookupAddress).family);
    });
  };
  return { check, lookup };
}
