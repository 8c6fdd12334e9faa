// The AsyncAPI Initiative's own parser (@asyncapi/parser) on the documents named on the command
// line: prints one JSON line per document, {path, parsed, errors: [{code, message, path}]}.
// Run by tests/events/test_asyncapi_parser.py with the pinned package installed in var/node-tools.
const fs = require("fs");
const { Parser } = require("@asyncapi/parser");

(async () => {
  const parser = new Parser();
  for (const path of process.argv.slice(2)) {
    const { document, diagnostics } = await parser.parse(fs.readFileSync(path, "utf8"));
    const errors = diagnostics
      .filter((d) => d.severity === 0)
      .map((d) => ({ code: d.code, message: d.message, path: d.path.join("/") }));
    console.log(JSON.stringify({ path, parsed: document !== undefined, errors }));
  }
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
