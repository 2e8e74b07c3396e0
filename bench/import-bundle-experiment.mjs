// Experiment (not part of `npm run bench`): how much of @toolwright/runtime's import cost is the
// number of ES modules rather than the code? Bundles the built dist (root + stdio + http entry points)
// into one ESM file with esbuild and compares fresh-process import time and RSS with the module tree
// and with the SDK client. Run: `npm run build && node bench/import-bundle-experiment.mjs [reps]`.
// Since the runtime ships bundled (packages/runtime/bundle.mjs) the "module tree" is its six files;
// the TurboFan cliff that made the old 52-module tree cost ~4.5 MiB more is in docs/performance.md.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const cache = `${root}bench/.cache`;
const reps = Number(process.argv[2] ?? 9);
mkdirSync(cache, { recursive: true });
const dist = `${root}packages/runtime/dist`;
writeFileSync(
  `${cache}/bundle-entry.mjs`,
  `export * from "${dist}/index.js";\nexport { createStdioCaller } from "${dist}/stdio.js";\nexport { createHttpCaller } from "${dist}/http.js";\n`,
);
const { build } = await import("esbuild");
await build({
  entryPoints: [`${cache}/bundle-entry.mjs`],
  bundle: true,
  format: "esm",
  platform: "node",
  outfile: `${cache}/runtime-bundle.mjs`,
  logLevel: "error",
});

const sets = {
  "toolwright modules (root + stdio + http)": ["@toolwright/runtime", "@toolwright/runtime/stdio", "@toolwright/runtime/http"],
  "toolwright single-file bundle": [`${cache}/runtime-bundle.mjs`],
  "sdk client (index + stdio + streamableHttp)": [
    "@modelcontextprotocol/sdk/client/index.js",
    "@modelcontextprotocol/sdk/client/stdio.js",
    "@modelcontextprotocol/sdk/client/streamableHttp.js",
  ],
};
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const results = {};
for (let r = 0; r < reps; r++) {
  for (const [name, mods] of Object.entries(sets)) {
    const code = `const b=process.memoryUsage().rss;const t=performance.now();${mods.map((m) => `await import(${JSON.stringify(m)});`).join("")}console.log(JSON.stringify({ms:performance.now()-t,mib:(process.memoryUsage().rss-b)/1048576}))`;
    const out = spawnSync(process.execPath, ["--input-type=module", "-e", code], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "" },
      encoding: "utf8",
      timeout: 30_000,
    });
    const m = JSON.parse(out.stdout.trim());
    if (!results[name]) results[name] = { ms: [], mib: [] };
    results[name].ms.push(m.ms);
    results[name].mib.push(m.mib);
  }
}
const sdk = results["sdk client (index + stdio + streamableHttp)"];
console.log(`| Import (in-process, median of ${reps}) | ms | × SDK | RSS MiB | × SDK |\n|---|---:|---:|---:|---:|`);
for (const [name, v] of Object.entries(results)) {
  const ms = median(v.ms);
  const mib = median(v.mib);
  console.log(
    `| ${name} | ${ms.toFixed(1)} | ${(ms / median(sdk.ms)).toFixed(2)}× | ${mib.toFixed(2)} | ${(mib / median(sdk.mib)).toFixed(2)}× |`,
  );
}
