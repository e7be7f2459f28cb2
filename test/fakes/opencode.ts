/**
 * A fake `opencode` executable for the OpenCode injector: it records each call's argv, stdin and
 * cwd, and answers `opencode api GET|POST ...` from a control file the test edits between passes.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeExecutable } from "../helpers";

/** How the fake answers one HTTP method; the default is exit 0 with `{}`. */
export type OpencodeAnswer = { code?: number; stdout?: string; stderr?: string };
export type OpencodeControl = { GET?: OpencodeAnswer; POST?: OpencodeAnswer };
export type OpencodeCall = { argv: string[]; stdin: string; cwd: string };

export type FakeOpencode = {
  /** Replaces the answers for later calls. */
  answer(control: OpencodeControl): void;
  /** Every call so far, oldest first (argv without the program name). */
  calls(): OpencodeCall[];
};

const script = (dir: string) => `#!${process.execPath}
const fs = require("node:fs");
const dir = ${JSON.stringify(dir)};
const argv = process.argv.slice(2);
const stdin = await Bun.stdin.text();
fs.appendFileSync(dir + "/calls.jsonl", JSON.stringify({ argv, stdin, cwd: process.cwd() }) + "\\n");
const control = JSON.parse(fs.readFileSync(dir + "/control.json", "utf8"));
const a = control[String(argv[1] ?? "").toUpperCase()] ?? {};
process.stdout.write(a.stdout ?? "{}\\n");
if (a.stderr) process.stderr.write(a.stderr);
process.exit(a.code ?? 0);
`;

/** Writes `opencode` into `binDir` (first on the world's PATH); its records live beside it. */
export function installFakeOpencode(binDir: string, control: OpencodeControl = {}): FakeOpencode {
  const dir = join(binDir, "..", "fake-opencode");
  mkdirSync(dir, { recursive: true });
  const controlPath = join(dir, "control.json");
  const callsPath = join(dir, "calls.jsonl");
  writeFileSync(controlPath, JSON.stringify(control));
  writeFileSync(callsPath, "");
  writeExecutable(join(binDir, "opencode"), script(dir));
  return {
    answer: (c) => writeFileSync(controlPath, JSON.stringify(c)),
    calls: () =>
      readFileSync(callsPath, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as OpencodeCall),
  };
}
