// Serves the conformance server (its generated scaffold) over Streamable HTTP on 127.0.0.1 (port from argv, default 0) and
// prints the URL on stdout. For manual harness runs; the vitest suite starts it in-process.
import { serveHttp } from "../../../packages/runtime/src/server.js";
import { createScaffoldedConformanceServer } from "./scaffold-server.js";

const handle = await serveHttp(createScaffoldedConformanceServer(), { port: Number(process.argv[2] ?? 0), host: "127.0.0.1" });
process.stdout.write(`${handle.url}\n`);
const stop = () => void handle.close().then(() => process.exit(0));
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
