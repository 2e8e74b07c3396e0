/**
 * Real catalogue with client features: server-everything pulled as a client that declares roots,
 * sampling and elicitation lists 17 tools (examples/catalogues, toolset "everything-features").
 * The four tools a plain client never sees are called here through the generated client, with the
 * runtime's client-feature handlers answering the server's requests, over stdio, Streamable HTTP and
 * legacy HTTP+SSE. The other 13 are the same tools as in catalogue-everything.test.ts (same
 * fingerprints, checked below).
 */
import type { ChildProcess } from "node:child_process";
import type { SessionCaller } from "@toolwright/runtime/caller";
import { createClientFeatures } from "@toolwright/runtime/client-features";
import { clearHttpEraCache, createHttpCaller } from "@toolwright/runtime/http";
import { createStdioCaller } from "@toolwright/runtime/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { everythingCatalogue } from "../../examples/catalogues/src/gen/everything/index.js";
import {
  checkEverythingFeaturesDrift,
  createEverythingFeaturesClient,
  type EverythingFeaturesClient,
  everythingFeaturesCatalogue,
} from "../../examples/catalogues/src/gen/everything-features/index.js";

import { EVERYTHING as bin, startEverything, stopEverything } from "../support/everything-server.js";
import { createLeakCheck } from "../support/leak-check.js";

const leaks = createLeakCheck();
afterAll(async () => {
  const report = await leaks.check();
  leaks.dispose();
  for (const [what, found] of Object.entries(report)) expect(found, what).toEqual([]);
});

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

describe.each(["stdio", "streamableHttp", "sse"] as const)(
  "server-everything with client features over %s, through the generated client",
  (transport) => {
    let child: ChildProcess | undefined;
    let caller: SessionCaller;
    let client: EverythingFeaturesClient;
    beforeAll(async () => {
      clearHttpEraCache();
      const common = {
        name: "everything-features",
        capabilities: features.capabilities,
        handlers: features.handlers,
        onNotification: (n: Parameters<typeof features.onNotification>[0]) => void features.onNotification(n),
        // The lock was pulled with roots, sampling and elicitation only; declaring task support would
        // make the server list its trigger-*-async tools too (test/interop/everything-tasks.test.ts).
        tasks: false,
      } as const;
      if (transport === "stdio") caller = createStdioCaller({ ...common, command: process.execPath, args: [bin, "stdio"] });
      else {
        const started = await startEverything(transport, (pids) => leaks.track(pids));
        child = started.child;
        caller = createHttpCaller({ ...common, url: `http://127.0.0.1:${started.port}/${transport === "sse" ? "sse" : "mcp"}` });
      }
      client = createEverythingFeaturesClient(caller);
    });
    afterAll(async () => {
      await caller.close();
      await stopEverything(child);
    });

    it("the live catalogue matches the lock; the shared 13 tools have the plain pull's fingerprints", async () => {
      expect(await checkEverythingFeaturesDrift(caller, { policy: "fail" })).toEqual({
        ok: true,
        server: "everything-features",
        drift: [],
      });
      const extra = Object.keys(everythingFeaturesCatalogue.tools).filter((t) => !(t in everythingCatalogue.tools));
      expect(extra.sort()).toEqual([
        "get-roots-list",
        "trigger-elicitation-request",
        "trigger-sampling-request",
        "trigger-url-elicitation",
      ]);
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
  },
);
