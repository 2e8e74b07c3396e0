/**
 * `toolwright approve [server] [tool]`: connects to the servers of the project's mcp.json, and
 * records the current fingerprint of each listed tool in the approval store next to that mcp.json
 * (`mcp-approvals.json`), which the manager's trust-on-first-use gate reads. `--list` only shows
 * what is held back. Every approved tool is linted first; findings are printed.
 */
import type { createMcpManager } from "@toolwright/runtime/manager";
import type { Argv, CommandModule } from "yargs";

interface ApproveIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly cwd?: string;
}

interface ApproveArgs {
  readonly server: string | undefined;
  readonly tool: string | undefined;
  readonly project: string;
  readonly list: boolean;
  readonly json: boolean;
}

/** Runs one approval; returns the exit code (0 ok, 1 `--list` found held tools, 2 config or server error). Never throws. */
export async function approveAction(args: ApproveArgs, io: ApproveIo): Promise<number> {
  let manager: ReturnType<typeof createMcpManager> | undefined;
  try {
    // The runtime loads only when the command runs, so `toolwright --help` stays quick.
    const { describeFinding, lintCatalogue } = await import("@toolwright/runtime/catalogue");
    const { approvalsPathFor, createApprovalStore, createMcpManager, loadMcpConfig } = await import("@toolwright/runtime/manager");
    const config = loadMcpConfig({ projectDir: args.project });
    const file = config.files?.at(-1);
    if (!file) throw new Error(`no mcp.json found (looked for ${args.project}/.toolwright/mcp.json and the global one)`);
    if (args.server !== undefined && !Object.hasOwn(config.mcpServers, args.server)) {
      throw new Error(`unknown server "${args.server}" (have: ${Object.keys(config.mcpServers).join(", ")})`);
    }
    const store = createApprovalStore({ path: approvalsPathFor(file), newTools: "hold" });
    const only = args.server === undefined ? config.mcpServers : { [args.server]: config.mcpServers[args.server] as never };
    manager = createMcpManager({ ...config, mcpServers: only }, { approvals: store });
    const statuses = await manager.start();
    const failed = statuses.filter((s) => s.state === "failed");
    for (const s of failed) io.stderr(`error: server "${s.name}": ${s.error ?? "failed to connect"}`);
    const held = manager.heldTools().filter((h) => args.tool === undefined || h.name === args.tool);
    if (args.list) {
      if (args.json) io.stdout(JSON.stringify({ ok: held.length === 0, command: "approve", store: store.path, held }));
      else {
        for (const h of held)
          io.stdout(`held: ${h.server}.${h.name} (${h.reason === "changed" ? "changed since approved" : "never approved"})`);
        io.stdout(`${held.length} tool${held.length === 1 ? "" : "s"} held back (${store.path})`);
      }
      return failed.length > 0 ? 2 : held.length > 0 ? 1 : 0;
    }
    const approved = await manager.approve(args.server, args.tool);
    const lint = lintCatalogue(
      [...new Set(approved.map((id) => id.slice(0, id.indexOf("."))))].map((name) => ({
        name,
        tools: (manager?.tools() ?? []).filter((t) => t.server === name && approved.includes(t.id)).map((t) => t.descriptor),
      })),
    );
    for (const f of lint) io.stderr(`lint: ${describeFinding(f)}`);
    const newly = held.filter((h) => approved.includes(`${h.server}.${h.name}`));
    if (args.json)
      io.stdout(JSON.stringify({ ok: failed.length === 0, command: "approve", store: store.path, approved, newly, findings: lint }));
    else {
      for (const h of newly) io.stdout(`approved: ${h.server}.${h.name} (${h.reason === "changed" ? "changed since approved" : "new"})`);
      io.stdout(
        `toolwright approve: ${approved.length} tool${approved.length === 1 ? "" : "s"} recorded, ${newly.length} newly approved -> ${store.path}`,
      );
    }
    return failed.length > 0 ? 2 : 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (args.json) io.stdout(JSON.stringify({ ok: false, command: "approve", exitCode: 2, error: message }));
    else io.stderr(`error: ${message}`);
    return 2;
  } finally {
    await manager?.stop();
  }
}

/** The yargs command; `setAction` receives the work to run after parsing. */
export function approveCommand(io: ApproveIo, setAction: (action: () => Promise<number>) => void): CommandModule {
  return {
    command: "approve [server] [tool]",
    describe: "Approve the current tool catalogue of mcp.json servers (trust on first use; changed tools stay held back until approved)",
    builder: (y: Argv) =>
      y
        .positional("server", { type: "string", describe: "Only this server (default: every server in mcp.json)" })
        .positional("tool", { type: "string", describe: "Only this tool of the server" })
        .option("project", { type: "string", describe: "Project folder holding .toolwright/mcp.json (default: the current folder)" })
        .option("list", { type: "boolean", default: false, describe: "Approve nothing; list held-back tools (exit 1 when there are any)" })
        .option("json", { type: "boolean", default: false, describe: "Print a machine-readable JSON summary" })
        .example("$0 approve", "approve every tool of every server at its current fingerprint")
        .example("$0 approve files read_file", "re-approve one tool after reviewing its change")
        .example("$0 approve --list", "CI: fail while tools are held back")
        .epilogue(
          "The store is mcp-approvals.json next to the project's mcp.json. Exit codes: 0 ok, 1 --list found held tools, 2 config or server error.",
        ),
    handler: (a) => {
      const raw = a as unknown as { server?: string | number; tool?: string | number; project?: string; list: boolean; json: boolean };
      const args: ApproveArgs = {
        server: raw.server === undefined ? undefined : String(raw.server),
        tool: raw.tool === undefined ? undefined : String(raw.tool),
        project: raw.project ?? io.cwd ?? process.cwd(),
        list: raw.list,
        json: raw.json,
      };
      setAction(() => approveAction(args, io));
    },
  };
}
