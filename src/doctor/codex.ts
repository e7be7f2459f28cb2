/**
 * Doctor's Codex sandbox line for a Codex commander (issue 15 item 8). Codex's default sandbox
 * (workspace-write) keeps `.git` read-only and ends every process a command started with the
 * command, so vx dispatch refuses under it; `sandbox_mode = "danger-full-access"` in Codex's
 * config.toml (or `codex --sandbox danger-full-access`) is what works.
 */
import { join } from "node:path";
import { errorMessage } from "../errors";
import { CODEX_SANDBOX_WHY, codexFullAccessAdvice, foreignPidNamespace, underCodex } from "../sandbox";
import { readTextIfExists } from "../state/files";
import type { Check } from "./report";

const NAME = "Codex sandbox";
const WHY = CODEX_SANDBOX_WHY;

/** The config file Codex reads: `$CODEX_HOME/config.toml`, by default `~/.codex/config.toml`. */
export function codexConfigPath(env: Record<string, string | undefined>): string {
  return join(env.CODEX_HOME || join(env.HOME ?? "", ".codex"), "config.toml");
}

/** The top-level `sandbox_mode` of a Codex config.toml's text; undefined when it sets none. */
export function sandboxModeOf(toml: string): string | undefined {
  const mode = (Bun.TOML.parse(toml) as Record<string, unknown>).sandbox_mode;
  return typeof mode === "string" ? mode : undefined;
}

export function codexSandboxCheck(env: Record<string, string | undefined>): Check {
  const path = codexConfigPath(env);
  const namespace = underCodex(env) ? foreignPidNamespace() : undefined;
  if (namespace) {
    return { status: "warn", name: NAME, detail: `this vx runs inside Codex's sandbox now (${namespace}): ${WHY} - ${codexFullAccessAdvice(env, path)}` };
  }
  let mode: string | undefined;
  try {
    mode = sandboxModeOf(readTextIfExists(path) ?? "");
  } catch (err) {
    return { status: "warn", name: NAME, detail: `cannot read ${path} (${errorMessage(err)}): ${WHY} - ${codexFullAccessAdvice(env, path)}` };
  }
  if (mode === "danger-full-access") return { status: "ok", name: NAME, detail: `sandbox_mode = "danger-full-access" in ${path}` };
  const set = mode === undefined ? `${path} sets no sandbox_mode` : `${path} sets sandbox_mode = "${mode}"`;
  return { status: "warn", name: NAME, detail: `${set}: ${WHY} - ${codexFullAccessAdvice(env, path)}` };
}
