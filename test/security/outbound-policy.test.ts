/**
 * Outbound policy for HTTP servers, against real HTTP servers on 127.0.0.1: `allowedHosts` is
 * checked at every redirect hop (a redirect to another host is refused and that host never gets a
 * request), plain http:// is refused except to loopback, and private addresses are refused whether
 * they are written literally, reached by a redirect, or behind a host name (checked after DNS).
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runPull } from "@toolwright/codegen";
import {
  addressClass,
  clearHttpEraCache,
  createHttpCaller,
  createOutboundGuard,
  type HttpCaller,
  type HttpCallerOptions,
} from "@toolwright/runtime/http";
import { validateServerEntry } from "@toolwright/runtime/manager";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ScriptedHttpServer, startScriptedHttpServer } from "../support/scripted-http-server.js";

const servers: ScriptedHttpServer[] = [];
const callers: HttpCaller[] = [];
const raw: http.Server[] = [];

beforeEach(() => clearHttpEraCache());
afterEach(async () => {
  for (const c of callers.splice(0)) await c.close();
  for (const s of servers.splice(0)) await s.close();
  for (const s of raw.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

async function scripted() {
  const server = await startScriptedHttpServer({
    tools: { echo: { run: (args) => ({ content: [{ type: "text", text: "ok" }], structuredContent: args }) } },
  });
  servers.push(server);
  return server;
}

function caller(options: HttpCallerOptions) {
  const c = createHttpCaller({ era: "legacy", connectTimeoutMs: 30_000, timeoutMs: 30_000, legacySseFallback: false, ...options });
  callers.push(c);
  return c;
}

/** A raw HTTP server on 127.0.0.1 that counts its requests. */
async function counting(handler: http.RequestListener = (_q, r) => void r.writeHead(500).end()) {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  raw.push(server);
  return { port: (server.address() as AddressInfo).port, hits };
}

const echo = { name: "echo", arguments: { v: 1 } };

describe("allowedHosts at every redirect hop", () => {
  it("a redirect to another host is refused and the other host gets no request", async () => {
    const other = await counting();
    const a = await scripted();
    // Same machine, another host name: localhost is not 127.0.0.1 as far as allowedHosts goes.
    a.next({ rpc: "initialize" }, { status: 307, headers: { location: `http://localhost:${other.port}/mcp` } });
    const r = await caller({ url: a.url, redirect: "follow", outbound: { allowedHosts: ["127.0.0.1"] } }).callTool(echo);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.failure.message).toContain(`redirect refused: http://localhost:${other.port} is not in allowedHosts`);
    expect(r.failure.kind).toBe("unavailable");
    expect(r.failure.recovery.action).toBe("replan");
    expect(other.hits).toEqual([]);
  });

  it("the second hop is checked too: an allowed hop, then a refused one", async () => {
    const other = await counting();
    const a = await scripted();
    a.next({ rpc: "initialize" }, { status: 307, headers: { location: `${a.url}?hop=1` } });
    a.next({ rpc: "initialize" }, { status: 302, headers: { location: `http://localhost:${other.port}/mcp` } });
    const r = await caller({ url: a.url, redirect: "follow", outbound: { allowedHosts: [`127.0.0.1:${new URL(a.url).port}`] } }).callTool(
      echo,
    );
    expect(r.ok).toBe(false);
    expect(!r.ok && r.failure.message).toContain("is not in allowedHosts");
    expect(a.requests.map((q) => q.url)).toEqual(["/mcp", "/mcp?hop=1"]);
    expect(other.hits).toEqual([]);
  });

  it("redirects between allowed hosts are followed and the call succeeds", async () => {
    const b = await scripted();
    const a = await scripted();
    a.next({ rpc: "initialize" }, { status: 307, headers: { location: b.url } });
    const r = await caller({ url: a.url, redirect: "follow", outbound: { allowedHosts: ["127.0.0.1"] } }).callTool(echo);
    expect(r.ok).toBe(true);
    expect(b.requests.length).toBeGreaterThan(0);
  });

  it("the first request is checked: a URL outside allowedHosts is never contacted", async () => {
    const a = await scripted();
    const r = await caller({ url: a.url, outbound: { allowedHosts: ["mcp.example"] } }).callTool(echo);
    expect(!r.ok && r.failure.message).toContain("is not in allowedHosts");
    expect(a.requests).toEqual([]);
  });
});

describe("plain http and private addresses", () => {
  it("plain http:// to a non-loopback host is refused before any DNS or connection; allowInsecureHttp lifts it", async () => {
    const r = await caller({ url: "http://mcp.example.invalid/mcp" }).callTool(echo);
    expect(!r.ok && r.failure.message).toContain("plain http:// is refused except to loopback");
    const allowed = await caller({ url: "http://mcp.example.invalid/mcp", outbound: { allowInsecureHttp: true } }).callTool(echo);
    // Now the request is attempted; the name does not resolve (.invalid never does).
    expect(!allowed.ok && allowed.failure.message).not.toContain("plain http://");
  });

  it.each([
    "https://10.1.2.3/mcp",
    "https://169.254.169.254/latest",
    "https://[fd00::1]/mcp",
    "https://[::ffff:192.168.1.1]/mcp",
    "https://100.64.0.1/",
  ])("refuses the private address %s unless allowPrivateNetworks", async (url) => {
    const r = await caller({ url }).callTool(echo);
    expect(!r.ok && r.failure.message).toContain("private or non-public address");
  });

  it("allowPrivateNetworks lifts the address check (the guard lets the URL through)", () => {
    const url = new URL("https://10.1.2.3/mcp");
    expect(createOutboundGuard().check(url)?.message).toContain("private or non-public address");
    expect(createOutboundGuard({ allowPrivateNetworks: true }).check(url)).toBeUndefined();
    expect(createOutboundGuard({ allowedHosts: ["*.example.com"] }).check(new URL("https://a.example.com/"))).toBeUndefined();
    expect(createOutboundGuard({ allowedHosts: ["*.example.com"] }).check(new URL("https://example.com.evil.test/"))?.code).toBe("EPOLICY");
    expect(createOutboundGuard({ allowedHosts: ["[::1]:8080"] }).check(new URL("http://[::1]:8080/"))).toBeUndefined();
    expect(createOutboundGuard({ allowedHosts: ["[::1]:8080"] }).check(new URL("http://[::1]:8081/"))?.code).toBe("EPOLICY");
  });

  it("a redirect from a loopback server into a private range is refused (SSRF through a redirect)", async () => {
    const a = await scripted();
    a.next({ rpc: "initialize" }, { status: 307, headers: { location: "http://169.254.169.254/latest/meta-data/" } });
    const r = await caller({ url: a.url, redirect: "follow" }).callTool(echo);
    expect(!r.ok && r.failure.message).toContain("redirect refused: http://169.254.169.254 is a private or non-public address");
  });

  it("loopback is allowed by default; allowLoopback false refuses it, for literals and for names after DNS", async () => {
    const a = await scripted();
    expect((await caller({ url: a.url }).callTool(echo)).ok).toBe(true);
    const sent = a.requests.length;
    const literal = await caller({ url: a.url, outbound: { allowLoopback: false } }).callTool(echo);
    expect(!literal.ok && literal.failure.message).toContain("is a loopback address");
    const named = await caller({ url: a.url.replace("127.0.0.1", "localhost"), outbound: { allowLoopback: false } }).callTool(echo);
    expect(!named.ok && named.failure.message).toMatch(/localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
    expect(a.requests).toHaveLength(sent);
  });

  it("classifies IPv4 and IPv6 ranges", () => {
    for (const ip of ["127.0.0.1", "127.9.9.9", "::1", "::ffff:127.0.0.1"]) expect(addressClass(ip)).toBe("loopback");
    for (const ip of [
      "10.0.0.1",
      "172.16.5.4",
      "172.31.255.255",
      "192.168.0.1",
      "169.254.169.254",
      "100.64.1.1",
      "0.0.0.0",
      "224.0.0.1",
      "fc00::1",
      "fd12:3456::1",
      "fe80::1",
      "::",
      "::ffff:10.0.0.1",
      "::ffff:a00:1",
      "64:ff9b::10.0.0.1",
    ])
      expect(addressClass(ip), ip).toBe("private");
    for (const ip of ["8.8.8.8", "172.32.0.1", "1.1.1.1", "2606:4700::1111", "::ffff:8.8.8.8"]) expect(addressClass(ip), ip).toBe("public");
  });
});

describe("toolwright pull honours the design's outbound policy", () => {
  it("externalServer({ url, outbound }) reaches the server only when the policy allows it", async () => {
    const a = await scripted();
    const dir = join(fileURLToPath(new URL("../..", import.meta.url)), ".tmp", `outbound-pull-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    try {
      const write = (outbound: string) =>
        writeFileSync(
          join(dir, "design.ts"),
          `import { design, externalServer, fromMCP, toolset } from "@toolwright/dsl";\nconst s = externalServer("remote", { url: ${JSON.stringify(a.url)}, outbound: ${outbound} });\nexport default design({ toolsets: [toolset("remote", fromMCP(s))] });\n`,
        );
      write("{ allowLoopback: false }");
      await expect(runPull({ design: join(dir, "design.ts"), cwd: dir })).rejects.toThrow(
        /pull failed for server "remote": .*is a loopback address/,
      );
      expect(a.requests).toEqual([]);
      write('{ allowedHosts: ["127.0.0.1"] }');
      const pulled = await runPull({ design: join(dir, "design.ts"), cwd: dir });
      expect(pulled.servers.map((s) => [s.name, s.tools])).toEqual([["remote", 1]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("mcp.json outbound field", () => {
  it("is validated with pointers", () => {
    expect(
      validateServerEntry(
        { url: "https://x.example", outbound: { allowedHosts: ["x.example"], allowInsecureHttp: true } },
        "/mcpServers/s",
      ),
    ).toEqual([]);
    expect(validateServerEntry({ url: "https://x.example", outbound: { allowPrivateNetworks: 1, bogus: true } }, "/mcpServers/s")).toEqual([
      { pointer: "/mcpServers/s/outbound/allowPrivateNetworks", message: "must be a boolean" },
      { pointer: "/mcpServers/s/outbound/bogus", message: "unknown field" },
    ]);
  });
});
