import { afterEach, describe, expect, it } from "vitest";
import { type LoopbackRedirect, startLoopbackRedirect } from "./loopback-redirect.js";

const open: LoopbackRedirect[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close()));
});

/** Plays the browser: follows the authorization URL's "redirect" to the loopback receiver. */
function browser(query: string) {
  return async (authorizationUrl: string) => {
    const redirect = new URL(authorizationUrl).searchParams.get("redirect_uri") as string;
    await fetch(`${redirect}?${query}`);
  };
}

describe("startLoopbackRedirect", () => {
  it("listens on 127.0.0.1 and resolves with the redirect's code, state and iss", async () => {
    const seen: string[] = [];
    const loopback = await startLoopbackRedirect({
      open: async (url) => {
        seen.push(url);
        await browser("code=abc&state=s1&iss=https%3A%2F%2Fas.example")(url);
      },
    });
    open.push(loopback);
    expect(loopback.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const authorizationUrl = `https://as.example/authorize?redirect_uri=${encodeURIComponent(loopback.redirectUri)}`;
    expect(await loopback.authorizationHandler(authorizationUrl)).toEqual({ code: "abc", state: "s1", iss: "https://as.example" });
    expect(seen).toEqual([authorizationUrl]);
    // A stray request with nothing pending is refused, and other paths are 404.
    expect((await fetch(loopback.redirectUri)).status).toBe(400);
    expect((await fetch(loopback.redirectUri.replace("/callback", "/other"))).status).toBe(404);
  });

  it("an error redirect rejects with the AS's error; a failing open() rejects too", async () => {
    const denied = await startLoopbackRedirect({ open: browser("error=access_denied&error_description=user+said+no") });
    open.push(denied);
    await expect(
      denied.authorizationHandler(`https://as.example/a?redirect_uri=${encodeURIComponent(denied.redirectUri)}`),
    ).rejects.toThrow("authorization refused: access_denied: user said no");
    const broken = await startLoopbackRedirect({
      open: () => {
        throw new Error("no browser");
      },
    });
    open.push(broken);
    await expect(broken.authorizationHandler("https://as.example/a")).rejects.toThrow(/could not open the authorization URL: no browser/);
  });

  it("close() rejects a pending authorization instead of leaving it hanging", async () => {
    const loopback = await startLoopbackRedirect({ open: () => {} });
    const pending = loopback.authorizationHandler("https://as.example/a");
    await loopback.close();
    await expect(pending).rejects.toThrow(/closed/);
  });
});
