// Several Prism mock servers in one node process: for each DOCUMENT PORT pair, the server the
// pinned Prism CLI's `prism mock DOCUMENT -h HOST -p PORT [-d --seed SEED]` starts, made by the
// CLI's own factory with the options its command line gives (without the watcher that restarts
// it when the file changes: the tests never change it). Loading the CLI's modules costs about
// three CPU seconds, paid here once instead of once per document.
//
// usage: node prism_hub.cjs PRISM_CLI_DIST static|dynamic SEED HOST DOCUMENT PORT [DOCUMENT PORT]...
"use strict";

const path = require("path");

const [dist, mode, seed, host, ...pairs] = process.argv.slice(2);
const { createSingleProcessPrism } = require(path.join(dist, "util", "createServer"));

async function main() {
  for (let i = 0; i + 1 < pairs.length; i += 2) {
    await createSingleProcessPrism({
      cors: true,
      dynamic: mode === "dynamic",
      port: Number(pairs[i + 1]),
      host,
      document: pairs[i],
      multiprocess: false,
      errors: false,
      verboseLevel: "info",
      ignoreExamples: false,
      seed: mode === "dynamic" ? seed : null,
      jsonSchemaFakerFillProperties: undefined,
    });
  }
}

main().catch((error) => {
  console.error(`fatal: ${error && error.stack ? error.stack : error}`);
  process.exit(1);
});
