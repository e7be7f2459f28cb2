// The whole loop a commander lives in, with the compiled binary, the fake herdr and a real sentinel:
// dispatch -> the soldier works and commits -> done -> the sentinel's wake reaches `vx sentinel await`
// -> land -> struck -> nothing left to drain. Then: a question answered with decide, a follow-up with
// prompt, and a soldier that vanishes and is redispatched.
import { describe, expect, test } from "bun:test";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { appendPaneText, callsOf, recordedPrompts, removeAgent, setAgentStatus } from "../fakes/herdr-control";
import { VX_BIN, git, waitFor } from "../helpers";
import { type Field, field, taskIdOf } from "./soldier-field";

/** `vx sentinel await` as the Stop hook runs it: a child of this process, in the project. */
function hook(f: Field) {
  return Bun.spawn([VX_BIN, "sentinel", "await"], { cwd: f.project, env: f.env, stdout: "pipe", stderr: "pipe" });
}

async function woken(f: Field): Promise<string> {
  const p = hook(f);
  const code = await p.exited;
  const text = await new Response(p.stderr).text();
  expect({ code, stdout: await new Response(p.stdout).text() }).toEqual({ code: 2, stdout: "" });
  return text;
}

describe("the commander's loop", () => {
  test("dispatch, work, done, wake, land, strike, quiet", async () => {
    await using f = await field({ scale: "0.02" });
    const d = await f.run(["dispatch", "fix the login bug"]);
    expect(d.code).toBe(0);
    const id = taskIdOf(d.stdout);
    expect(d.stdout).toContain("\nstatus=running\n");
    expect(d.stdout).toEndWith("still running past the quick-settle probe - the sentinel will record its final status\n");
    const task = f.task(id);
    expect(task.status).toBe("running");
    const name = task.herdr_agent_name ?? "";
    expect(recordedPrompts(f.fh, name)).toHaveLength(1);

    // The soldier works in its camp, commits, and ends its turn with a report.
    appendFileSync(join(task.camp_path ?? "", "login.ts"), "export const fixed = true;\n");
    git(task.camp_path ?? "", "add", "login.ts");
    git(task.camp_path ?? "", "commit", "-q", "-m", "fix the login bug");
    appendPaneText(f.fh, name, "⏺ Fixed the login bug and committed it on my branch.\n");
    setAgentStatus(f.fh, name, "done");

    const reason = await woken(f);
    expect(reason).toContain(`- mission ${id}: running -> done\n`);
    expect(reason).toStartWith("A vexillum soldier's status changed:\n");
    expect(f.task(id).output).toContain("Fixed the login bug");

    const land = await f.run(["land", id]);
    expect(land.stderr).toBe("");
    expect(land.code).toBe(0);
    expect(land.stdout).toContain(`landed: fast-forwarded ${f.project} to vexillum/${id}\n`);
    expect(land.stdout).toContain("struck: camp returned to the pool, herdr pane closed.\n");
    expect(git(f.project, "log", "-1", "--format=%s")).toBe("fix the login bug");
    expect(callsOf(f.fh, "tab", "close").map((c) => c.argv.at(-1))).toEqual([task.herdr_tab_id]);
    expect(f.task(id).status).toBe("done");

    expect((await f.run(["sentinel", "drain"])).stdout).toBe("{}\n");
    // Landed: out of the default view, shown landed with its commit under --all (TSK-12).
    expect((await f.run(["status"])).stdout).toBe("1 landed, struck or failed task not shown - vx status --all shows them\n");
    expect((await f.run(["status", "--all"])).stdout).toContain(`${id}  mission  landed `);
  });

  test("a question answered with decide, a follow-up with prompt, a vanished soldier redispatched", async () => {
    await using f = await field({ scale: "0.02" });
    const id = taskIdOf((await f.run(["dispatch", "migrate the database"])).stdout);
    const name = f.task(id).herdr_agent_name ?? "";

    appendPaneText(f.fh, name, "I found two ways.\nneeds-decision: keep the old schema or drop it?\n");
    setAgentStatus(f.fh, name, "idle");
    expect(await woken(f)).toContain(`- mission ${id}: running -> blocked\n`);
    expect(f.task(id).decision?.question).toBe("keep the old schema or drop it?");

    const answer = await f.run(["decide", id, "drop", "it"]);
    expect(answer.code).toBe(0);
    expect(answer.stdout).toEndWith(`answered task ${id}, now running\n`);
    expect(recordedPrompts(f.fh, name).at(-1)?.text).toStartWith("drop it\n");
    expect(f.task(id).decision).toMatchObject({ answer: "drop it" });

    // It finishes without a commit: unconfirmed after the window, with the note in the wake.
    appendPaneText(f.fh, name, "Dropped it.\n");
    setAgentStatus(f.fh, name, "done");
    expect(await woken(f)).toContain(`- mission ${id}: running -> unconfirmed\n  note: [vexillum] this soldier's turn went idle`);

    const follow = await f.run(["prompt", id, "commit", "your", "work"]);
    expect(follow.code).toBe(0);
    expect(follow.stdout).toEndWith(`prompted task ${id}, now running\n`);
    expect(f.task(id).amendments?.map((a) => a.source)).toEqual(["vx decide", "vx prompt"]);

    removeAgent(f.fh, name);
    expect(await woken(f)).toContain(`- mission ${id}: running -> interrupted\n  note: [vexillum] this soldier's herdr agent disappeared`);

    const again = await f.run(["redispatch", id]);
    expect(again.code).toBe(0);
    expect(taskIdOf(again.stdout)).toBe(id);
    await waitFor(() => f.task(id).status === "running", 5000, "the redispatched soldier running");
    expect(f.task(id).redispatches).toBe(1);
    const prompts = recordedPrompts(f.fh).filter((p) => p.text.startsWith("migrate the database"));
    expect(prompts).toHaveLength(2);
  });
});
