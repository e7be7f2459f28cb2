/**
 * CMD-RESUME-01: each harness's own "continue the last session in this directory" arguments, put
 * before its other arguments when `vx resume` relaunches a soldier in its camp. A camp is its own
 * worktree, so for Claude Code, Codex and Pi "this directory" names the soldier's own conversation.
 * OpenCode's `--continue` takes the newest session of the whole repository (every camp shares its
 * project), so its session is looked up by the camp's directory and named with `--session`
 * (docs/real-clients.md says how each was checked).
 */
import type { Deps } from "../deps";
import { VxError } from "../errors";
import { which } from "../exec";
import { realpathOr } from "../state/paths";
import type { HARNESSES } from "../state/schemas";
import { scaled } from "../time";

type Harness = (typeof HARNESSES)[number];

/** What a lookup needs: the camp and the caller's exec and environment (the soldier's too). */
export type ContinueCtx = Pick<Deps, "exec" | "env"> & { camp: string };

/**
 * The continue arguments of `harness` for the soldier of `ctx.camp`; undefined when there are none
 * (a harness without a continue flag, or no session of this camp): it then starts afresh. Throws
 * when a lookup fails, before anything has changed.
 */
export async function continueArgs(harness: Harness, ctx: ContinueCtx): Promise<string[] | undefined> {
  switch (harness) {
    case "claude":
      return ["--continue"];
    case "codex":
      // A subcommand, so first. `--last` picks the newest session of the current directory (`--all` would widen it).
      return ["resume", "--last"];
    case "pi":
      return ["--continue"];
    case "opencode": {
      const id = await opencodeSession(ctx);
      return id ? ["--session", id] : undefined;
    }
  }
}

type OpencodeSession = { id?: unknown; updated?: unknown; directory?: unknown };

/** The newest top-level OpenCode session whose directory is the camp, from `opencode session list`. */
async function opencodeSession(ctx: ContinueCtx): Promise<string | undefined> {
  const exe = which("opencode", ctx.env.PATH);
  if (!exe) throw new VxError("opencode not found in PATH, needed to find this soldier's session");
  const r = await ctx.exec.run([exe, "session", "list", "--format", "json"], {
    cwd: ctx.camp,
    env: ctx.env,
    timeoutMs: scaled("sessionLookup", ctx.env),
  });
  const why = r.code === 124 ? "it did not answer in time" : (r.stderr.trim().split("\n").at(-1) ?? `exit ${r.code}`);
  if (r.code !== 0) throw new VxError(`could not list OpenCode's sessions to find this soldier's ('opencode session list': ${why})`);
  // No sessions at all prints nothing.
  let list: OpencodeSession[];
  try {
    list = r.stdout.trim() === "" ? [] : (JSON.parse(r.stdout) as OpencodeSession[]);
    if (!Array.isArray(list)) throw new Error("not a list");
  } catch {
    throw new VxError("could not read OpenCode's session list ('opencode session list --format json' printed something else)");
  }
  const camp = realpathOr(ctx.camp);
  const mine = list.filter((s) => typeof s.id === "string" && typeof s.directory === "string" && realpathOr(s.directory) === camp);
  mine.sort((a, b) => Number(b.updated ?? 0) - Number(a.updated ?? 0));
  return mine[0]?.id as string | undefined;
}
