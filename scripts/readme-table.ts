#!/usr/bin/env bun
/** Prints the README's command table from the command registry; `--write` updates README.md. */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readmeTable } from "../src/commands";

const table = await readmeTable();
if (process.argv.includes("--write")) {
  const path = join(import.meta.dir, "..", "README.md");
  const text = readFileSync(path, "utf8");
  const start = "<!-- commands:start -->\n";
  const end = "\n<!-- commands:end -->";
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  if (a < 0 || b < a) throw new Error("README.md has no command table markers");
  writeFileSync(path, text.slice(0, a + start.length) + table + text.slice(b));
} else {
  console.log(table);
}
