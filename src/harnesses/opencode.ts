/** OpenCode: soldier states from a file:// plugin; commander woken by its wake plugin (CMDR-08a) or typing. */
import { join } from "node:path";
import type { Check } from "../check";
import { UsageError, VxError } from "../errors";
import { EXEC_TIMED_OUT, which } from "../exec";
import { OPENCODE_CONFIG_PATH, OPENCODE_PLUGIN, OPENCODE_PLUGIN_ENTRY, OPENCODE_PLUGIN_PATH, hasOpencodePlugin, mergeOpencodeConfig } from "./opencode-plugin";
import { readTextIfExists } from "../state/files";
import { realpathOr } from "../state/paths";
import { scaled } from "../time";
import { opencodePlugin } from "./state-hook-templates";
import type { ContinueCtx, Harness } from "./types";
import { wakeFileCheck } from "./wake-check";
import { opencodeUsage } from "./usage/opencode";

function configCheck(top: string): Check {
  const name = "OpenCode loads the wake plugin";
  const fix = `add "${OPENCODE_PLUGIN_ENTRY}" to the "plugin" list of opencode.json (vx init does it), or OpenCode never starts the plugin`;
  const text = readTextIfExists(join(top, OPENCODE_CONFIG_PATH));
  try {
    if (text !== undefined && hasOpencodePlugin(JSON.parse(text))) return { status: "ok", name, detail: "listed in opencode.json" };
  } catch {
    return { status: "warn", name, detail: `opencode.json has invalid JSON; ${fix}` };
  }
  return { status: "warn", name, detail: fix };
}

type Session = { id?: unknown; updated?: unknown; directory?: unknown };

async function campSession(ctx: ContinueCtx): Promise<string | undefined> {
  const exe = which("opencode", ctx.env.PATH);
  if (!exe) throw new VxError("opencode not found in PATH, needed to find this soldier's session - put OpenCode on PATH, then resume again");
  const r = await ctx.exec.run([exe, "session", "list", "--format", "json"], { cwd: ctx.camp, env: ctx.env, timeoutMs: scaled("sessionLookup", ctx.env) });
  const why = r.code === EXEC_TIMED_OUT ? "it did not answer in time" : (r.stderr.trim().split("\n").at(-1) ?? `exit ${r.code}`);
  if (r.code !== 0)
    throw new VxError(`could not list OpenCode's sessions to find this soldier's ('opencode session list': ${why}) - run 'opencode session list' in the camp to see why, then resume again`);
  // No sessions at all prints nothing.
  let list: Session[];
  try {
    list = r.stdout.trim() === "" ? [] : (JSON.parse(r.stdout) as Session[]);
    if (!Array.isArray(list)) throw new Error("not a list");
  } catch {
    throw new VxError("could not read OpenCode's session list ('opencode session list --format json' printed something else) - run it in the camp to see what, then resume again");
  }
  const camp = realpathOr(ctx.camp);
  const mine = list.filter((s) => typeof s.id === "string" && typeof s.directory === "string" && realpathOr(s.directory) === camp);
  mine.sort((a, b) => Number(b.updated ?? 0) - Number(a.updated ?? 0));
  return mine[0]?.id as string | undefined;
}

export const opencode: Harness = {
  name: "opencode",
  label: "OpenCode",
  exe: "opencode",
  program: () => ["opencode"],
  soldierArgs: (model) => (model ? ["--model", model] : []),
  // A file:// plugin installs nothing; under a config directory OpenCode would install its SDK beside it, or dirty the camp.
  stateHooks({ vx, hooksDir }) {
    const path = join(hooksDir, "opencode-state.ts");
    return {
      args: [],
      env: { OPENCODE_CONFIG_CONTENT: JSON.stringify({ plugin: [Bun.pathToFileURL(path).href] }) },
      files: [{ path, content: opencodePlugin(vx) }],
    };
  },
  // A resumed session has no placeholder; the footer's key hint takes two rows in a narrow pane.
  ready: /Ask anything|\btab agents\b|\btab\s+ctrl\+p\b/,
  unsent: undefined,
  checkModelEffort(_model, effort) {
    if (effort !== undefined) throw new UsageError("--effort is not supported for harness opencode", "dispatch");
  },
  launchRefusal: () => undefined,
  // `--continue` takes the repository's newest session, not the camp's, so the camp's is named.
  continueArgs: async (ctx) => {
    const id = await campSession(ctx);
    return id ? ["--session", id] : undefined;
  },
  usage: opencodeUsage,
  commander: {
    wake: { kind: "idle-prompt" },
    installed: (top) => readTextIfExists(join(top, OPENCODE_PLUGIN_PATH)) !== undefined,
    plan(p) {
      p.wakeFile(OPENCODE_PLUGIN_PATH, OPENCODE_PLUGIN, "the OpenCode commander's wake plugin");
      if (p.exists("opencode.jsonc") && !p.exists(OPENCODE_CONFIG_PATH)) {
        p.note(`opencode.jsonc: add "${OPENCODE_PLUGIN_ENTRY}" to its "plugin" list yourself, so OpenCode loads the wake plugin (vx edits only opencode.json)`);
      } else {
        p.json(OPENCODE_CONFIG_PATH, mergeOpencodeConfig, "OpenCode loads the wake plugin");
      }
    },
    fileChecks: (top) => [wakeFileCheck(top, "OpenCode wake plugin", OPENCODE_PLUGIN_PATH, OPENCODE_PLUGIN), configCheck(top)],
    liveChecks: async () => [],
    nonInteractive: () => false,
    rearmsByTurn: () => false,
    tmuxCommander: { marker: "OPENCODE", pidVar: "OPENCODE_PID", program: /^opencode$/, busy: /esc\s+interrupt/i, mark: "┃", emptyInput: /^(?:Ask anything(?:\.\.\.|…).*)?$/, trailerRows: 1 },
  },
};
