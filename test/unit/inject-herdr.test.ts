// CMDR-08 on the real herdr 0.8.2: the sentinel's delivery to a hook-less commander in a herdr pane.
// A stand-in OpenCode (a script named `opencode`, which herdr takes for OpenCode and, matching none
// of its screen rules, reports idle; its prompt box drawn as OpenCode's is) runs in the root
// pane of a real herdr workspace. herdr's `idle` says nothing of what the input line holds, and its
// `agent prompt` appends to a person's unsent text and sends both: a wake is typed only while the
// screen, read as herdr shows it, has the input line empty; it is kept and retried otherwise, and
// typed once.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHerdrClient } from "../../src/backends/herdr/client";
import { injectWakes } from "../../src/commanders/inject";
import { realExec } from "../../src/exec";
import { waitFor } from "../helpers";
import { type RealHerdr, startRealHerdr } from "../herdr-real";
import { T0, commanderWithWake, iso, world } from "../sentinel-kit";
import { sandboxPath } from "../tool-path";

/** The stand-in OpenCode, its prompt box drawn as OpenCode's is. */
const STAND_IN = join(import.meta.dir, "..", "fixtures", "opencode-stand-in.sh");

let h: RealHerdr;

beforeAll(async () => {
  const bin = mkdtempSync(join(tmpdir(), "vx-stand-in-"));
  // herdr tells an agent by its program's name.
  symlinkSync(STAND_IN, join(bin, "opencode"));
  // The server's PATH, which its panes' shells inherit.
  h = await startRealHerdr({ env: { PATH: sandboxPath(bin) } });
});
afterAll(async () => {
  await h?.stop();
});

type Field = Awaited<ReturnType<typeof field>>;

/** A project whose registered OpenCode commander is the stand-in in a real herdr pane, with one pending wake. */
async function field() {
  const w = world();
  const env = { ...w.env, ...h.env };
  w.ctx.env = env;
  w.ctx.exec = realExec;
  const { dir, paths } = w.addProject();
  const ws = h.workspace(dir);
  const screen = () => h.run(["pane", "read", ws.pane, "--source", "visible"]).stdout;
  h.run(["pane", "run", ws.pane, "opencode"]);
  // `agent_not_found`, then `unknown`, for a few seconds before herdr settles on `idle`.
  const status = () => h.run(["agent", "get", ws.pane]).stdout.match(/"agent_status":"(\w+)"/)?.[1];
  await waitFor(() => (status() === "idle" ? true : undefined), 30_000, "herdr to report the stand-in idle").catch((err) => {
    throw new Error(`${(err as Error).message}\n${h.run(["agent", "get", ws.pane]).stdout}\n${screen()}`);
  });
  const entry = { herdr_pane_id: ws.pane, herdr_workspace_id: ws.workspace, project_path: dir, registered_at: iso(T0) };
  const { id, wakePath, queued } = commanderWithWake(w, paths, "opencode", entry);
  const agents = () => createHerdrClient({ exec: realExec, env }).agentList();
  const typed = (what: string) => waitFor(() => (screen().includes(what) ? true : undefined), 10_000, JSON.stringify(what));
  const close = () => {
    h.run(["pane", "close", ws.pane]);
    w[Symbol.dispose]();
  };
  return { w, dir, paths, pane: ws.pane, screen, typed, id, wakePath, queued, agents, close };
}

/** Runs `check` on a fresh field, closing its pane and world after. */
async function inField(check: (f: Field) => Promise<void>): Promise<void> {
  const f = await field();
  try {
    await check(f);
  } finally {
    f.close();
  }
}

describe("a hook-less commander in a real herdr pane (CMDR-08)", () => {
  test("idle with an empty input line: the wake is typed once and consumed", () =>
    inField(async (f) => {
      await injectWakes(f.w.ctx, await f.agents());
      expect(f.queued()).toEqual([]);
      await f.typed(`got: - mission ${f.id}: running -> done`);
      expect(f.w.logs).toEqual([`sentinel: delivered 1 wake(s) to the opencode commander of ${f.dir} via herdr agent prompt`]);
      await injectWakes(f.w.ctx, await f.agents());
      expect(f.screen().split(`got: - mission ${f.id}`).length - 1).toBe(1);
    }));

  test("a person's unsent text in the input line (herdr still reports idle): nothing typed, the wake kept and typed once it is gone", () =>
    inField(async (f) => {
      h.run(["pane", "send-text", f.pane, "half a thought"]);
      await f.typed("┃  half a thought");
      await injectWakes(f.w.ctx, await f.agents());
      expect(f.queued()).toEqual([`${f.id}.json`]);
      expect(JSON.parse(readFileSync(f.wakePath, "utf8")).delivery_failing_since).toBeDefined();
      expect(f.screen()).not.toContain("mission");
      expect(f.w.logs.join("\n")).toContain("holding unsent text in its input line");
      // The person sends their own line, alone; the next pass types the wake.
      h.run(["pane", "send-keys", f.pane, "enter"]);
      await f.typed("got: half a thought");
      expect(f.screen()).not.toContain("half a thoughtA vexillum");
      await injectWakes(f.w.ctx, await f.agents());
      expect(f.queued()).toEqual([]);
      await f.typed(`got: - mission ${f.id}: running -> done`);
    }));
});
