// FOR-09's "a commander is listening" rule for registered commanders, decided from real files: the project's
// commanders.json, the sentinel's lock, and an agent list as herdr's `agent list` reports it. (A live await is
// proven with a real `vx sentinel await` in test/e2e/forum-board-talk.test.ts.)
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentInfo } from "../../src/backends/agents";
import { realExec } from "../../src/exec";
import { type AgentsCache, cachedAgents, listeningIn } from "../../src/forum/listening";
import { type HeldLock, lockExclusive } from "../../src/state/lock";
import { projectPaths, rootPaths } from "../../src/state/paths";
import { realClock } from "../../src/time";

const dirs: string[] = [];
const locks: HeldLock[] = [];
afterEach(() => {
  for (const l of locks.splice(0)) l.release();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup(commanders: Record<string, unknown> | undefined) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "vx-listening-")));
  dirs.push(root);
  const paths = projectPaths(root, "/p/app");
  mkdirSync(paths.stateDir, { recursive: true });
  if (commanders) writeFileSync(paths.commandersFile, JSON.stringify({ schema_version: 1, commanders }));
  return { root, paths };
}

const herdrEntry = { herdr_pane_id: "w1:p1", herdr_workspace_id: "w1", project_path: "/p/app", registered_at: "2026-12-01T10:00:00Z" };
const agent = (kind: string): AgentInfo => ({ agent: kind, agent_status: "working", pane_id: "w1:p1", tab_id: "t1", workspace_id: "w1", state_change_seq: 1, interactive_ready: true });
const deps = { exec: realExec, clock: realClock, env: {} };
const listed = (agents: AgentInfo[]) => async () => agents;

describe("who listens in a project (FOR-09)", () => {
  test("a live await is enough; with none and nobody registered, nobody listens", async () => {
    const { root, paths } = setup(undefined);
    expect(await listeningIn(root, paths, 1, deps, listed([]))).toEqual({ listening: true, by: "await" });
    expect(await listeningIn(root, paths, 0, deps, listed([]))).toEqual({ listening: false });
  });

  test("a registered Claude Code commander herdr shows live listens through its Stop hook; one herdr does not show does not", async () => {
    const { root, paths } = setup({ claude: herdrEntry });
    expect(await listeningIn(root, paths, 0, deps, listed([agent("claude")]))).toEqual({ listening: true, by: "commander", commander: "claude" });
    expect(await listeningIn(root, paths, 0, deps, listed([]))).toEqual({ listening: false });
    // Another kind in that pane is not this commander.
    expect(await listeningIn(root, paths, 0, deps, listed([agent("codex")]))).toEqual({ listening: false });
  });

  test("a live hook-less commander (Codex) listens only while the sentinel runs to deliver to it", async () => {
    const { root, paths } = setup({ codex: herdrEntry });
    expect(await listeningIn(root, paths, 0, deps, listed([agent("codex")]))).toEqual({ listening: false });
    locks.push(lockExclusive(rootPaths(root).sentinelLock));
    expect(await listeningIn(root, paths, 0, deps, listed([agent("codex")]))).toEqual({ listening: true, by: "commander", commander: "codex" });
  });

  test("a corrupt commanders.json counts as nobody", async () => {
    const { root, paths } = setup(undefined);
    writeFileSync(paths.commandersFile, "{not json");
    expect(await listeningIn(root, paths, 0, deps, listed([agent("claude")]))).toEqual({ listening: false });
  });

  test("herdr's agent list is asked at most every 10 s, then again", async () => {
    const cache: AgentsCache = { at: 0 };
    let asked = 0;
    const env = { PATH: "/nonexistent" }; // no herdr: each asking fails to an empty list
    const counting = { ...deps, env, exec: { ...realExec, run: (...a: Parameters<typeof realExec.run>) => (asked++, realExec.run(...a)) } };
    const t0 = 1_000_000;
    expect(await cachedAgents(cache, counting, t0)()).toEqual([]);
    const first = asked;
    await cachedAgents(cache, counting, t0 + 9_000)();
    expect(asked).toBe(first);
    await cachedAgents(cache, counting, t0 + 10_000)();
    expect(asked).toBeGreaterThan(first);
  });
});
