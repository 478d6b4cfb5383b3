// Validates an AsyncAPI document with the official parser; exits 1 on any error.
// Usage: node validate-asyncapi.mjs ../../docs/asyncapi.json
import { readFileSync } from "node:fs";
import { Parser } from "@asyncapi/parser";

const path = process.argv[2];
if (!path) {
  console.error("usage: node validate-asyncapi.mjs FILE");
  process.exit(2);
}
const parser = new Parser();
const { document, diagnostics } = await parser.parse(readFileSync(path, "utf8"));
// Severity 0 is an error; warnings (1) and hints are printed but do not fail.
const errors = diagnostics.filter((d) => d.severity === 0);
for (const d of diagnostics) {
  console.error(`${["error", "warning", "info", "hint"][d.severity]}: ${d.message} at ${d.path.join(".")}`);
}
if (!document || errors.length > 0) {
  console.error(`${path}: invalid AsyncAPI (${errors.length} errors)`);
  process.exit(1);
}
console.log(`${path}: valid AsyncAPI ${document.version()}, ${document.channels().length} channels, ${document.operations().length} operations`);
