/** Doctor's tool checks (DOC-04) and the VX_TIME_SCALE check (DOC-05). */
import type { Deps } from "../deps";
import { errorMessage } from "../errors";
import { which } from "../exec";
import { DEFAULT_HARNESS, HARNESSES } from "../harnesses";
import { parseHerdrVersion } from "../backends/herdr-version";
import type { ProjectConfig } from "../state/schemas";
import { GUARDS, parseTimeScale } from "../time";
import type { Check } from "./report";

async function herdrChecks(deps: Deps, herdr: string): Promise<Check[]> {
  const out: Check[] = [];
  const ver = await deps.exec.run([herdr, "--version"], { env: deps.env, timeoutMs: GUARDS.toolProbe });
  const parsed = ver.code === 0 ? parseHerdrVersion(ver.stdout) : undefined;
  if (!parsed) {
    const why = ver.code === 0 ? `unexpected output ${JSON.stringify(ver.stdout.trim())}` : ver.stderr.trim() || `exit ${ver.code}`;
    out.push({ status: "warn", name: "herdr version", detail: `could not determine herdr version: ${why}` });
  } else if (!parsed.supported) {
    out.push({
      status: "warn",
      name: "herdr version",
      detail: `${parsed.version} is outside 0.8.2-0.9.x - vx's herdr integration was verified against 0.9.x, this version may behave differently`,
    });
  } else {
    out.push({ status: "ok", name: "herdr version", detail: parsed.version });
  }
  const st = await deps.exec.run([herdr, "status", "server", "--json"], { env: deps.env, timeoutMs: GUARDS.toolProbe });
  try {
    const doc = JSON.parse(st.stdout) as { running?: boolean; compatible?: boolean; protocol?: number };
    if (!doc.running) out.push({ status: "warn", name: "herdr server", detail: "not running" });
    else if (doc.compatible === false) {
      out.push({ status: "warn", name: "herdr server", detail: "not compatible with this herdr CLI; restart the herdr server" });
    } else out.push({ status: "ok", name: "herdr server", detail: `running (protocol ${doc.protocol})` });
  } catch (err) {
    const why = st.stderr.trim() || errorMessage(err);
    out.push({ status: "warn", name: "herdr server", detail: `could not read its status: ${why}` });
  }
  return out;
}

/** The tmux backend passes each soldier's environment with `new-session -e`, new in tmux 3.2. */
export const TMUX_MIN = [3, 2] as const;

export function parseTmuxVersion(text: string): [number, number] | undefined {
  const m = /^tmux (?:next-)?(\d+)\.(\d+)/.exec(text.trim());
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

async function tmuxVersionCheck(deps: Deps, tmux: string): Promise<Check> {
  const res = await deps.exec.run([tmux, "-V"], { env: deps.env, timeoutMs: GUARDS.toolProbe });
  const version = parseTmuxVersion(res.stdout);
  const shown = res.stdout.trim().replace(/^tmux /, "") || res.stderr.trim() || `exit ${res.code}`;
  if (!version) return { status: "warn", name: "tmux version", detail: `could not read it from 'tmux -V' (${shown})` };
  const [maj, min] = version;
  if (maj > TMUX_MIN[0] || (maj === TMUX_MIN[0] && min >= TMUX_MIN[1])) return { status: "ok", name: "tmux version", detail: shown };
  return { status: "missing", name: "tmux version", detail: `${shown} is older than ${TMUX_MIN.join(".")}, which the tmux backend needs - upgrade tmux`, required: true };
}

/** git, herdr (+ version and server), tmux and the four harnesses, in DOC-04 order. */
export async function toolChecks(deps: Deps, config: ProjectConfig | undefined): Promise<Check[]> {
  const path = deps.env.PATH;
  const backend = config?.backend ?? "herdr";
  const out: Check[] = [];
  const git = which("git", path);
  out.push(git ? { status: "ok", name: "git", detail: git } : { status: "missing", name: "git", detail: "git not found in PATH", required: true });
  const herdr = which("herdr", path);
  if (herdr) {
    out.push({ status: "ok", name: "herdr", detail: herdr });
    out.push(...(await herdrChecks(deps, herdr)));
  } else if (backend === "herdr") {
    out.push({ status: "missing", name: "herdr", detail: "herdr not found in PATH", required: true });
  } else {
    out.push({ status: "missing", name: "herdr", detail: "herdr not found in PATH (optional, for the herdr backend)" });
  }
  const tmux = which("tmux", path);
  if (tmux) {
    out.push({ status: "ok", name: "tmux", detail: tmux });
    if (backend === "tmux") out.push(await tmuxVersionCheck(deps, tmux));
  } else if (backend === "tmux") out.push({ status: "missing", name: "tmux", detail: "tmux not found in PATH", required: true });
  else out.push({ status: "missing", name: "tmux", detail: "tmux not found in PATH (optional, for the tmux backend)" });
  for (const h of Object.values(HARNESSES)) {
    const found = which(h.exe, path);
    const role = harnessRole(h.name, config);
    if (found) out.push({ status: "ok", name: h.label, detail: found });
    else if (role) out.push({ status: "missing", name: h.label, detail: `${h.exe} not found in PATH (required, ${role})`, required: true });
    else {
      out.push({ status: "missing", name: h.label, detail: `${h.exe} not found in PATH (optional, only needed to run ${h.label} soldiers or commanders)` });
    }
  }
  return out;
}

/**
 * Why a harness is required (the project's default soldier harness or its commander, claude
 * outside a project), or undefined when it is optional.
 */
function harnessRole(harness: string, config: ProjectConfig | undefined): string | undefined {
  const soldier = (config?.harness ?? DEFAULT_HARNESS) === harness;
  const commander = (config?.commander ?? DEFAULT_HARNESS) === harness;
  const whose = config ? "this project's" : "the default";
  if (soldier && commander) return `${whose} soldier and commander harness`;
  if (soldier) return `${whose} soldier harness`;
  return commander ? `${whose} commander harness` : undefined;
}

export function timeScaleCheck(deps: Deps): Check[] {
  const raw = deps.env.VX_TIME_SCALE;
  if (raw === undefined || raw === "") return [];
  const ts = parseTimeScale(raw);
  if (!ts.valid) return [{ status: "warn", name: "VX_TIME_SCALE", detail: `"${raw}" is not a positive number, using 1` }];
  return [{ status: "warn", name: "VX_TIME_SCALE", detail: `${raw} (every built-in duration is scaled; for tests and demos)` }];
}
