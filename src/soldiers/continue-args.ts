/**
 * CMD-RESUME-01: each harness's own "continue the last session in this directory" arguments, put
 * before its other arguments when `vx resume` relaunches a soldier in its camp. A camp is its own
 * worktree, so "this directory" names the soldier's own conversation (docs/real-clients.md says
 * how each was checked). Codex's is a subcommand, so these come first in the argv.
 */
import type { HARNESSES } from "../state/schemas";

type Harness = (typeof HARNESSES)[number];

/** The continue arguments of `harness`; undefined for a harness that has none (it starts fresh). */
export function continueArgs(harness: Harness): string[] | undefined {
  switch (harness) {
    case "claude":
      return ["--continue"];
    case "codex":
      // `--last` picks the newest session recorded for the current directory (`--all` would widen it).
      return ["resume", "--last"];
    case "pi":
      return ["--continue"];
    case "opencode":
      return ["--continue"];
  }
}
