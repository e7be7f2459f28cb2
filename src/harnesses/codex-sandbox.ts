/** Doctor's Codex sandbox line: whether config.toml lets dispatch work (full access, or writable roots and the network). */
import { join } from "node:path";
import { errorMessage } from "../errors";
import { CODEX_SANDBOX_WHY, codexSandboxAdvice, foreignPidNamespace, underCodex } from "../sandbox";
import { readTextIfExists } from "../state/files";
import type { Check } from "../check";

const NAME = "Codex sandbox";

function codexConfigPath(env: Record<string, string | undefined>): string {
  return join(env.CODEX_HOME || join(env.HOME ?? "", ".codex"), "config.toml");
}

type SandboxSettings = { mode?: string; writableRoots: string[]; network: boolean };

function sandboxSettingsOf(toml: string): SandboxSettings {
  const doc = Bun.TOML.parse(toml) as Record<string, unknown>;
  const ww = (doc.sandbox_workspace_write ?? {}) as Record<string, unknown>;
  const roots = Array.isArray(ww.writable_roots) ? ww.writable_roots.filter((r): r is string => typeof r === "string") : [];
  return { mode: typeof doc.sandbox_mode === "string" ? doc.sandbox_mode : undefined, writableRoots: roots, network: ww.network_access === true };
}

/** `gitDir`: the common git dir, which the sandbox must let vx write. */
export function codexSandboxCheck(env: Record<string, string | undefined>, gitDir: string, root: string): Check {
  const path = codexConfigPath(env);
  const advice = codexSandboxAdvice(env, { config: path, writable: [gitDir, root] });
  const namespace = underCodex(env) ? foreignPidNamespace() : undefined;
  if (namespace) {
    return { status: "warn", name: NAME, detail: `this vx runs inside Codex's sandbox now (${namespace}): ${CODEX_SANDBOX_WHY} - ${advice}` };
  }
  let settings: SandboxSettings;
  try {
    settings = sandboxSettingsOf(readTextIfExists(path) ?? "");
  } catch (err) {
    return { status: "warn", name: NAME, detail: `cannot read ${path} (${errorMessage(err)}): ${CODEX_SANDBOX_WHY} - ${advice}` };
  }
  if (settings.mode === "danger-full-access") return { status: "ok", name: NAME, detail: `sandbox_mode = "danger-full-access" in ${path}` };
  const sandboxed = settings.mode === undefined || settings.mode === "workspace-write";
  if (sandboxed && settings.network && [gitDir, root].every((p) => settings.writableRoots.includes(p))) {
    return {
      status: "ok",
      name: NAME,
      detail: `${path} keeps the sandbox with ${gitDir} and ${root} writable and the network on: start 'vx sentinel' outside Codex, none is started from inside its sandbox`,
    };
  }
  const set = settings.mode === undefined ? `${path} sets no sandbox_mode` : `${path} sets sandbox_mode = "${settings.mode}"`;
  return { status: "warn", name: NAME, detail: `${set}: ${CODEX_SANDBOX_WHY} - ${advice}` };
}
