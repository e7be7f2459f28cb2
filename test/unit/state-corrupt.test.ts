// A corrupt soldier state as the sentinel meets it (issue 15, item 12): logged once, the task left
// running (a corrupt report says nothing), and judged again once the soldier's next report
// replaces the file.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { statePath, writeSoldierState } from "../../src/state/soldier-state";
import { tmuxBackend } from "../../src/backends/tmux/survey";
import { runPass } from "../../src/sentinel/pass";
import { loadTask } from "../../src/state/tasks";
import { memoryTmux } from "../fakes/tmux-memory";
import { iso, taskId, world } from "../sentinel-kit";

describe("the sentinel meets a corrupt soldier state", () => {
  test("logged once while it lasts; the replacing report is judged", async () => {
    using w = world();
    const tmux = memoryTmux();
    w.ctx.backends = { tmux: tmuxBackend(() => tmux) };
    const { paths } = w.addProject();
    tmux.add("vx-b", { text: "Do you want to make this edit?\n❯ 1. Yes\n  2. No\n" });
    const t = w.writeTask(paths, { id: taskId(), backend: "tmux", tmux_target: "vx-b" });
    const path = statePath(paths, t.id);
    mkdirSync(path, { recursive: true }); // a directory where the report belongs
    await runPass(w.ctx);
    await runPass(w.ctx);
    const lines = w.logs.filter((l) => l.includes(path));
    expect(lines).toEqual([
      `sentinel: mission ${t.id} (${paths.key}): status unknown until its soldier reports again: ${path}: is a directory, not a regular file - vx leaves it as it is; remove it or move it aside`,
    ]);
    expect(loadTask(paths, t.id)?.value.status).toBe("running");

    const warnings: string[] = [];
    writeSoldierState(paths, { task_id: t.id, state: "blocked", at: iso(w.clock.now()), source: "claude" }, (l) => warnings.push(l));
    expect(warnings).toEqual([`replaced the corrupt soldier state ${path} (is a directory, not a regular file)`]);
    await runPass(w.ctx);
    expect(loadTask(paths, t.id)?.value.status).toBe("blocked");

    // A later corruption is news again.
    writeFileSync(join(paths.statesDir, `${t.id}.json`), "");
    w.writeTask(paths, { id: t.id, backend: "tmux", tmux_target: "vx-b" });
    await runPass(w.ctx);
    expect(w.logs.filter((l) => l.includes(path))).toHaveLength(2);
  });
});
