/**
 * The state hooks of a tmux soldier (TMX-05): the harness arguments, environment and files that
 * make a soldier's harness run `vx report <state>` as its turns start and end and as it waits for
 * a permission. Every file goes under `hooksDir`, outside the camp, and is named by a harness
 * flag or environment variable, so nothing is written into the camp. The soldier's identity is
 * in the environment (`VX_TASK_ID`), so the hooks work from any directory the model moves to.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { VxError } from "../errors";
import { isTaskId } from "../state/ids";
import type { TASK_HARNESSES } from "../state/schemas";
import { demoHooks } from "./demo-harness";
import { opencodePlugin, piExtension } from "./hooks/templates";

export type HookedLaunch = { args: string[]; env: Record<string, string>; files: { path: string; content: string }[] };

type Harness = (typeof TASK_HARNESSES)[number];
type State = "working" | "idle" | "blocked";

/** POSIX shell single-quoting: `text` as exactly one word, whatever it holds. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** A TOML basic string (JSON's escapes are TOML's, except that TOML also forbids a raw DEL). */
export function tomlString(text: string): string {
  return JSON.stringify(text).replaceAll("\u007f", "\\u007F");
}

/** The shell command a hook runs: no text but the quoted vx path and fixed words. */
function reportCommand(vx: string, state: State): string {
  return `${shellQuote(vx)} report ${state}`;
}

// Claude Code runs each hook through `/bin/sh -c` and waits for it, so the reports land in turn
// order. PermissionRequest fires as a permission dialog opens and is a decision hook: vx report
// prints nothing and exits 0, leaving the decision to the dialog (it never exits 2, which would
// block). The Notification for the same dialog comes about 6 s later (TMX-05 names it; older
// versions have no PermissionRequest). PostToolUse is the first event after an answered dialog:
// it puts the soldier back to working, as the reopen pass (SEN-20) needs.
function claude(vx: string, hooksDir: string): Omit<HookedLaunch, "env"> {
  const hooks = (state: State) => [{ type: "command", command: reportCommand(vx, state), timeout: 10 }];
  const settings = {
    hooks: {
      UserPromptSubmit: [{ hooks: hooks("working") }],
      PermissionRequest: [{ hooks: hooks("blocked") }],
      Notification: [{ matcher: "permission_prompt", hooks: hooks("blocked") }],
      PostToolUse: [{ hooks: hooks("working") }],
      Stop: [{ hooks: hooks("idle") }],
      StopFailure: [{ hooks: hooks("idle") }],
    },
  };
  const path = join(hooksDir, "claude-settings.json");
  return { args: ["--settings", path], files: [{ path, content: `${JSON.stringify(settings, null, 2)}\n` }] };
}

// Codex's lifecycle hooks, Claude-style, given with -c (its notify is not used: it also fires for
// Codex's own title-generation turn, which runs beside the soldier's first turn under another
// thread, and was seen firing while the soldier sat at a permission dialog, so it would report
// idle over blocked or working; the Stop hook fires for the soldier's own turns only). Hooks
// given with -c are skipped silently unless trusted, and trust given with -c is ignored, so the
// trust check is bypassed for this invocation (recording trust would mean editing the user's
// CODEX_HOME). They add to the user's own hooks, and run through a shell like Claude Code's.
function codex(vx: string): Omit<HookedLaunch, "env"> {
  const hook = (event: string, state: State) => ["-c", `hooks.${event}=[{hooks=[{type="command",command=${tomlString(reportCommand(vx, state))}}]}]`];
  return {
    args: [
      "--dangerously-bypass-hook-trust",
      ...hook("UserPromptSubmit", "working"),
      ...hook("PermissionRequest", "blocked"),
      ...hook("PostToolUse", "working"),
      ...hook("Stop", "idle"),
    ],
    files: [],
  };
}

function pi(vx: string, hooksDir: string): Omit<HookedLaunch, "env"> {
  const path = join(hooksDir, "pi-state.ts");
  return { args: ["-e", path], files: [{ path, content: piExtension(vx) }] };
}

// OPENCODE_CONFIG_CONTENT is one more config layer over the user's and the project's (their
// providers and plugins still load); a file:// plugin is loaded as it is, with nothing installed
// for it (a plugin under a config directory, OPENCODE_CONFIG_DIR's included, makes OpenCode
// install its SDK beside it, and one under the camp's .opencode/ would dirty the camp).
function opencode(vx: string, hooksDir: string): HookedLaunch {
  const path = join(hooksDir, "opencode-state.ts");
  return {
    args: [],
    env: { OPENCODE_CONFIG_CONTENT: JSON.stringify({ plugin: [pathToFileURL(path).href] }) },
    files: [{ path, content: opencodePlugin(vx) }],
  };
}

/**
 * The extra harness args, env and files (all files outside the camp, under `hooksDir`) that make
 * the harness call `vx report <state>`. The caller writes the files before starting the harness.
 */
export function stateHooks(harness: Harness, opts: { vx: string; taskId: string; hooksDir: string }): HookedLaunch {
  if (!isTaskId(opts.taskId)) throw new VxError(`state hooks: "${opts.taskId}" is not a task id`);
  if (!opts.vx.startsWith("/") || !opts.hooksDir.startsWith("/")) {
    throw new VxError(`state hooks: the vx path and the hooks directory must be absolute (got ${opts.vx} and ${opts.hooksDir})`);
  }
  const env = { VX_TASK_ID: opts.taskId, VX_HARNESS: harness };
  switch (harness) {
    case "claude":
      return { ...claude(opts.vx, opts.hooksDir), env };
    case "codex":
      return { ...codex(opts.vx), env };
    case "pi":
      return { ...pi(opts.vx, opts.hooksDir), env };
    case "opencode": {
      const launch = opencode(opts.vx, opts.hooksDir);
      return { ...launch, env: { ...launch.env, ...env } };
    }
    case "demo":
      return { ...demoHooks(opts.vx), env: { ...demoHooks(opts.vx).env, ...env } };
  }
}
