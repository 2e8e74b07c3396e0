/**
 * Real catalogue with client features: server-everything pulled as a client that declares roots,
 * sampling and elicitation lists 17 tools (examples/catalogues, toolset "everything-features").
 * The four tools a plain client never sees are called here through the generated client, with the
 * runtime's client-feature handlers answering the server's requests. The other 13 are the same tools
 * as in catalogue-everything.test.ts (same fingerprints, checked below).
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { createClientFeatures } from "@toolwright/runtime/client-features";
import { createStdioCaller, type StdioCaller } from "@toolwright/runtime/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { everythingCatalogue } from "../../examples/catalogues/src/gen/everything/index.js";
import {
  checkEverythingFeaturesDrift,
  createEverythingFeaturesClient,
  type EverythingFeaturesClient,
  everythingFeaturesCatalogue,
} from "../../examples/catalogues/src/gen/everything-features/index.js";

const require = createRequire(import.meta.url);
const bin = join(dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist/index.js");

const asked: unknown[] = [];
const features = createClientFeatures({
  roots: { list: [{ uri: "file:///tmp/tw-catalogue-root", name: "catalogue-root" }] },
  elicitation: {
    form: (request) => {
      asked.push(request);
      return { action: "accept", content: { name: "Grace Hopper", check: true } };
    },
    url: (request) => {
      asked.push(request);
      return { action: "accept" };
    },
  },
  sampling: {
    createMessage: (request) => {
      asked.push(request);
      return { role: "assistant", content: { type: "text", text: "sampled for the catalogue" }, model: "fake", stopReason: "endTurn" };
    },
  },
});

let caller: StdioCaller;
let client: EverythingFeaturesClient;

beforeAll(() => {
  caller = createStdioCaller({
    name: "everything-features",
    command: process.execPath,
    args: [bin, "stdio"],
    capabilities: features.capabilities,
    handlers: features.handlers,
    onNotification: (n) => void features.onNotification(n),
    // The lock was pulled with roots, sampling and elicitation only; declaring task support would
    // make the server list its trigger-*-async tools too (test/interop/everything-tasks.test.ts).
    tasks: false,
  });
  client = createEverythingFeaturesClient(caller);
});
afterAll(async () => {
  await caller.close();
});

describe("server-everything with client features, through the generated client", () => {
  it("the live catalogue matches the lock; the shared 13 tools have the plain pull's fingerprints", async () => {
    expect(await checkEverythingFeaturesDrift(caller, { policy: "fail" })).toEqual({ ok: true, server: "everything-features", drift: [] });
    const extra = Object.keys(everythingFeaturesCatalogue.tools).filter((t) => !(t in everythingCatalogue.tools));
    expect(extra.sort()).toEqual(["get-roots-list", "trigger-elicitation-request", "trigger-sampling-request", "trigger-url-elicitation"]);
    for (const [tool, fp] of Object.entries(everythingCatalogue.tools)) expect(everythingFeaturesCatalogue.tools[tool], tool).toBe(fp);
  });

  it("calls the four client-feature tools", async () => {
    const roots = await client.getRootsList({});
    expect(roots.ok && roots.value).toContain("file:///tmp/tw-catalogue-root");
    asked.length = 0;
    const form = await client.triggerElicitationRequest({});
    expect(form.ok && form.value).toContain("Grace Hopper");
    expect(asked).toHaveLength(1);
    const url = await client.triggerUrlElicitation({ url: "https://example.test/consent", elicitationId: "cat-1" });
    expect(url.ok && url.value).toContain("cat-1");
    expect(asked[1]).toMatchObject({ mode: "url", url: "https://example.test/consent", elicitationId: "cat-1" });
    const sampled = await client.triggerSamplingRequest({ prompt: "hello", maxTokens: 5 });
    expect(sampled.ok && sampled.value).toContain("sampled for the catalogue");
    expect(asked[2]).toMatchObject({ maxTokens: 5 });
  });
});
