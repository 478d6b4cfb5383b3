// Checks accord's published schemas with ajv (JSON Schema 2020-12, strict mode, formats
// checked): every document compiles, every example and scenario line is valid, and
// broken copies of them are refused. Prints a JSON report; tests/core/test_contracts_ajv.py
// reads it. Usage: node validate.mjs <repository root>
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const Ajv2020 = require("ajv/dist/2020");
const addFormats = require("ajv-formats");

const root = process.argv[2];
const schemaDir = path.join(root, "contracts", "schemas");
const exampleDir = path.join(root, "contracts", "examples");
const readJson = (file) => JSON.parse(fs.readFileSync(file, "utf8"));

const report = { compiled: [], valid: [], invalid: [], refused: [], accepted: [] };
const validators = {};
for (const file of fs.readdirSync(schemaDir).sort()) {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  const name = file.replace(".schema.json", "");
  try {
    validators[name] = ajv.compile(readJson(path.join(schemaDir, file)));
    report.compiled.push(name);
  } catch (error) {
    report.invalid.push({ name, error: String(error.message) });
  }
}

function check(label, name, document) {
  const validate = validators[name];
  if (validate(document)) report.valid.push(label);
  else report.invalid.push({ label, errors: validate.errors });
}

// Broken copies: each required field dropped, the tag unknown, a naive timestamp.
function expectRefused(label, name, document) {
  const validate = validators[name];
  const schema = validate.schema.$ref
    ? validate.schema.$defs[validate.schema.$ref.replace("#/$defs/", "")]
    : validate.schema;
  const broken = [];
  for (const field of schema.required ?? []) {
    const copy = { ...document };
    delete copy[field];
    broken.push([`without ${field}`, copy]);
  }
  if ("type" in document) broken.push(["unknown type", { ...document, type: "unknown_kind" }]);
  if ("ts" in document) broken.push(["naive ts", { ...document, ts: "2026-11-30T09:00:00" }]);
  for (const [what, copy] of broken) {
    if (validate(copy)) report.accepted.push(`${label}: ${what}`);
    else report.refused.push(`${label}: ${what}`);
  }
}

for (const file of fs.readdirSync(exampleDir).sort()) {
  if (!file.endsWith(".json")) continue;
  const name = file.split(".")[0];
  const document = readJson(path.join(exampleDir, file));
  check(file, name, document);
  expectRefused(file, name, document);
}
const scenarioDir = path.join(exampleDir, "scenarios");
for (const file of fs.readdirSync(scenarioDir).sort()) {
  const lines = fs.readFileSync(path.join(scenarioDir, file), "utf8").split("\n").filter(Boolean);
  lines.forEach((line, index) => check(`${file}:${index + 1}`, "input_event", JSON.parse(line)));
}
process.stdout.write(JSON.stringify(report));
