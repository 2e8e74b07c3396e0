import { describe, expect, it } from "vitest";
import { expandTemplate, matchTemplate, templateVariables } from "./uri-template.js";

describe("RFC 6570 levels 1-3", () => {
  const values = { var: "value", hello: "Hello World!", path: "/foo/bar", x: "1024", y: "768", empty: "" };
  it.each([
    ["{var}", "value"],
    ["{hello}", "Hello%20World%21"],
    ["{+hello}", "Hello%20World!"],
    ["{+path}/here", "/foo/bar/here"],
    ["{#path}", "#/foo/bar"],
    ["map?{x,y}", "map?1024,768"],
    ["{.var}", ".value"],
    ["{/var,x}/here", "/value/1024/here"],
    ["{;x,y,empty}", ";x=1024;y=768;empty"],
    ["{?x,y,undef}", "?x=1024&y=768"],
    ["?fixed=yes{&x}", "?fixed=yes&x=1024"],
    ["file:///{path}", "file:///%2Ffoo%2Fbar"],
  ])("expands %s", (template, expected) => {
    expect(expandTemplate(template, values)).toBe(expected);
  });

  it("lists variables once, in order", () => {
    expect(templateVariables("test://template/{id}/data{?q,id}")).toEqual(["id", "q"]);
  });

  it("matches URIs back to variables, decoded", () => {
    expect(matchTemplate("test://template/{id}/data", "test://template/123/data")).toEqual({ id: "123" });
    expect(matchTemplate("test://template/{id}/data", "test://template/1/2/data")).toBeUndefined();
    expect(matchTemplate("file:///{+path}", "file:///a/b%20c.txt")).toEqual({ path: "a/b c.txt" });
    expect(matchTemplate("demo://r{/kind,id}", "demo://r/text/7")).toEqual({ kind: "text", id: "7" });
    expect(matchTemplate("search{?q,lang}", "search?q=tea&lang=fr")).toEqual({ q: "tea", lang: "fr" });
    expect(matchTemplate("x://{id}", "y://1")).toBeUndefined();
  });

  it("round-trips expand and match", () => {
    const template = "notes://{folder}/{+rest}{?sort}";
    const uri = expandTemplate(template, { folder: "work", rest: "a/b", sort: "asc" });
    expect(matchTemplate(template, uri)).toEqual({ folder: "work", rest: "a/b", sort: "asc" });
  });

  it("rejects bad templates naming the problem", () => {
    expect(() => templateVariables("x://{id")).toThrow(/never closed/);
    expect(() => templateVariables("x://{a b}")).toThrow(/bad variable/);
  });
});
