/**
 * A fake `codex` for the sentinel's Codex delivery (CMDR-09): it records each call's argv, cwd
 * and CODEX_HOME, and answers with the exit code and output the test sets. Only the argv shape is
 * trusted here; the compat suite shows what the real `codex queue` does with it.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeExecutable } from "../helpers";

export type CodexAnswer = { code?: number; stdout?: string; stderr?: string };
export type CodexCall = { argv: string[]; cwd: string; codexHome?: string };
export type FakeCodex = { answer(a: CodexAnswer): void; calls(): CodexCall[] };

const script = (dir: string) => `#!${process.execPath}
const fs = require("node:fs");
const dir = ${JSON.stringify(dir)};
fs.appendFileSync(dir + "/calls.jsonl", JSON.stringify({ argv: process.argv.slice(2), cwd: process.cwd(), codexHome: process.env.CODEX_HOME }) + "\\n");
const a = JSON.parse(fs.readFileSync(dir + "/answer.json", "utf8"));
process.stdout.write(a.stdout ?? "");
if (a.stderr) process.stderr.write(a.stderr);
process.exit(a.code ?? 0);
`;

/** Writes `codex` into `binDir` (first on the world's PATH); its records live beside it. */
export function installFakeCodex(binDir: string): FakeCodex {
  const dir = join(binDir, "..", "fake-codex");
  mkdirSync(dir, { recursive: true });
  const answerPath = join(dir, "answer.json");
  const callsPath = join(dir, "calls.jsonl");
  writeFileSync(answerPath, JSON.stringify({ stdout: "Queued message m1 for thread t1.\n" }));
  writeFileSync(callsPath, "");
  writeExecutable(join(binDir, "codex"), script(dir));
  return {
    answer: (a) => writeFileSync(answerPath, JSON.stringify(a)),
    calls: () =>
      readFileSync(callsPath, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as CodexCall),
  };
}
