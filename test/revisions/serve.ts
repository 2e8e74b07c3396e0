// Serves the tasks fixture server with the test-only revisions registered (spawned through tsx by
// revisions.test.ts); stdio by default, `--http` for HTTP.
import "./registered.js";
import { parseServeArgs, serve } from "../../packages/runtime/src/server.js";
import { createTasksServer } from "../server/fixtures/tasks-server.js";

const handle = await serve(createTasksServer(), parseServeArgs(process.argv.slice(2)));
if (handle.url) process.stdout.write(`${handle.url}\n`);
