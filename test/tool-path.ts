/**
 * The PATH tests run vx under: a directory of links to just the real tools the suite uses. The
 * user's own PATH never reaches a sandbox, so a `vx` or `herdr` installed in ~/.local/bin (or next
 * to git, as Homebrew puts everything in one directory) cannot change what a test sees.
 */
import { chmodSync, existsSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Real tools vx, the fakes and the fixtures call; a missing one is simply absent, as on a bare machine. */
const TOOLS = [
  "git",
  "tmux",
  "sh",
  "bash",
  "env",
  "ps",
  "kill",
  "sleep",
  "cat",
  "echo",
  "printf",
  "sed",
  "grep",
  "awk",
  "head",
  "tail",
  "tr",
  "cut",
  "sort",
  "wc",
  "ls",
  "mkdir",
  "rm",
  "cp",
  "mv",
  "ln",
  "chmod",
  "touch",
  "dirname",
  "basename",
  "readlink",
  "realpath",
  "mktemp",
  "date",
  "id",
  "uname",
  "true",
  "false",
  "test",
  "xargs",
  "find",
  "tee",
  "stat",
  "nohup",
  "setsid",
  "setpriv",
  "chown",
];

let dir: string | undefined;

/** The tools directory (made once per test process, inside the run's temp dir). */
export function toolPath(): string {
  if (dir && existsSync(dir)) return dir;
  const made = mkdtempSync(join(tmpdir(), "vx-tools-"));
  // Searchable by others: a test runs vx as another user under this PATH.
  chmodSync(made, 0o755);
  // The runner's own bun, so the fakes' `#!/usr/bin/env bun` runs the bun that runs the tests.
  symlinkSync(process.execPath, join(made, "bun"));
  for (const name of TOOLS) {
    const real = Bun.which(name, { PATH: process.env.PATH ?? "/usr/bin:/bin" });
    if (real) symlinkSync(real, join(made, name));
  }
  dir = made;
  return made;
}

/** `PATH` for a sandbox: its own bin dirs first, then the real tools, nothing else. */
export function sandboxPath(...bins: string[]): string {
  return [...bins, toolPath()].join(":");
}
