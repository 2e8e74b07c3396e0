import { describe, expect, it } from "vitest";
import { clientMetadataDocument } from "./cimd.js";

describe("clientMetadataDocument (CIMD)", () => {
  it("builds a public-client document whose client_id is its own URL", () => {
    expect(
      clientMetadataDocument({
        clientId: "https://agent.example/oauth/client.json",
        clientName: "Agent",
        redirectUris: ["http://127.0.0.1:8123/cb"],
      }),
    ).toEqual({
      client_id: "https://agent.example/oauth/client.json",
      client_name: "Agent",
      redirect_uris: ["http://127.0.0.1:8123/cb"],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      application_type: "native",
    });
  });

  it("refuses a client_id that is not an https URL with a path, and an empty redirect list", () => {
    const base = { clientName: "A", redirectUris: ["http://localhost/cb"] };
    expect(() => clientMetadataDocument({ ...base, clientId: "http://agent.example/c.json" })).toThrow(/must be an https URL/);
    expect(() => clientMetadataDocument({ ...base, clientId: "https://agent.example/" })).toThrow(/with a path/);
    expect(() => clientMetadataDocument({ ...base, clientId: "not a url" })).toThrow(/must be an https URL/);
    expect(() => clientMetadataDocument({ ...base, clientId: "https://agent.example/c.json", redirectUris: [] })).toThrow(/redirect URI/);
  });
});
