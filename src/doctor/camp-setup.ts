/** Doctor's camp setup checks (STA-10): `.worktreeinclude` parses and what it names; each `camp_setup` program is on PATH. */
import { lstatSync } from "node:fs";
import { join } from "node:path";
import { argvText, setupTimeoutSeconds } from "../camps/setup";
import { INCLUDE_FILE, INCLUDE_LIMITS, includedFiles } from "../camps/include";
import type { Deps } from "../deps";
import { errorMessage } from "../errors";
import { which } from "../exec";
import type { ProjectConfig } from "../state/schemas";
import type { Check } from "../check";

async function includeCheck(deps: Deps, top: string): Promise<Check | undefined> {
  if (!lstatSync(join(top, INCLUDE_FILE), { throwIfNoEntry: false })) return undefined;
  const name = INCLUDE_FILE;
  let files: string[];
  try {
    files = await includedFiles(top, deps.exec);
  } catch (err) {
    return { status: "warn", name, detail: `${errorMessage(err)}; every dispatch fails until it is fixed` };
  }
  if (files.length > INCLUDE_LIMITS.files) {
    return { status: "warn", name, detail: `names ${files.length} ignored files (more than ${INCLUDE_LIMITS.files}), so every dispatch will fail - install dependencies with camp_setup instead` };
  }
  return { status: "ok", name, detail: `${files.length} ignored file(s) to copy into each camp` };
}

function commandsCheck(deps: Deps, config: ProjectConfig): Check | undefined {
  const commands = config.camp_setup ?? [];
  if (commands.length === 0) return undefined;
  const name = "camp_setup";
  for (const [i, argv] of commands.entries()) {
    const program = argv[0]!;
    // A path with a slash runs from the camp, which doctor cannot see: only bare names are looked up.
    if (!program.includes("/") && !which(program, deps.env.PATH)) {
      return { status: "warn", name, detail: `${program} not found in PATH (command ${i + 1}: ${argvText(argv)}); every dispatch fails until it is installed` };
    }
  }
  return { status: "ok", name, detail: `${commands.length} command(s), each program found (limit ${setupTimeoutSeconds(config)}s each)` };
}

/** The lines for this project: none when it uses neither. */
export async function campSetupChecks(deps: Deps, top: string, config: ProjectConfig): Promise<Check[]> {
  return [await includeCheck(deps, top), commandsCheck(deps, config)].filter((c): c is Check => c !== undefined);
}
