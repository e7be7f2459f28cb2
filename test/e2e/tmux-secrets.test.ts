// No value of the dispatching environment is on any command line (issue 15): tmux keeps the
// command line of the `new-session` that started its server for life, and every user can read it.
// The soldier still gets the caller's environment, whether vx starts the server or it already ran.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { listTasks } from "../../src/state/tasks";
import { waitFor } from "../helpers";
import { tmuxField } from "./tmux-field";

type TF = Awaited<ReturnType<typeof tmuxField>>;

const HARNESS = `#!/bin/sh\nprintf '%s' "$ANTHROPIC_API_KEY" > "$HOME/seen-key"\nprintf '\\342\\235\\257 \\n'\nexec cat\n`;

function cmdline(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return undefined; // gone meanwhile
  }
}

/** Every process on the machine, with its parent. */
function processes(): { pid: number; ppid: number }[] {
  const out: { pid: number; ppid: number }[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // The command name (in parentheses) may hold spaces; the parent pid is the second field after it.
      out.push({ pid: Number(name), ppid: Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** The tmux server, and the soldier's pane process with all its descendants. */
function soldierProcesses(f: TF): { server: number; tree: number[] } {
  const server = Number(f.tmux("display-message", "-p", "#{pid}").out.trim());
  const pane = Number(f.tmux("list-panes", "-t", "=vx-fix-it:", "-F", "#{pane_pid}").out.trim());
  const all = processes();
  const tree = [pane];
  for (let i = 0; i < tree.length; i++) for (const p of all) if (p.ppid === tree[i]) tree.push(p.pid);
  return { server, tree };
}

async function dispatchWithSecret(f: TF, secret: string): Promise<string> {
  f.env.ANTHROPIC_API_KEY = secret;
  const r = await f.run(["dispatch", "fix it", "--backend", "tmux"]);
  expect({ code: r.code, stderr: r.stderr.replace(/^vx: auto-started sentinel.*\n/m, "") }).toEqual({ code: 0, stderr: "" });
  // The soldier sees the caller's variable.
  expect(await waitFor(() => (existsSync(join(f.home, "seen-key")) ? readFileSync(join(f.home, "seen-key"), "utf8") : undefined), 10_000, "the soldier's env")).toBe(secret);
  return listTasks(f.paths)[0]!.value.id;
}

function expectNowhereOnACommandLine(f: TF, id: string, secret: string): void {
  const { server, tree } = soldierProcesses(f);
  expect(cmdline(server)).toContain("tmux");
  expect(tree.length).toBeGreaterThan(0);
  for (const pid of [server, ...tree]) expect({ pid, cmdline: cmdline(pid) ?? "" }).toEqual({ pid, cmdline: expect.not.stringContaining(secret) });
  // Nor on any other process's.
  for (const { pid } of processes()) expect(cmdline(pid)?.includes(secret) ?? false).toBe(false);
  // The file that carried the environment is gone.
  expect(existsSync(join(f.paths.stateDir, "hooks", id, "soldier-env.json"))).toBe(false);
}

describe("the dispatching environment stays off command lines", () => {
  test("vx starts the tmux server: the secret is on no command line, and the soldier has it", async () => {
    await using f = await tmuxField(HARNESS);
    const secret = `sk-ant-api03-${crypto.randomUUID()}`;
    const id = await dispatchWithSecret(f, secret);
    // The server is the one this dispatch started.
    expect(cmdline(soldierProcesses(f).server)).toContain("new-session");
    expectNowhereOnACommandLine(f, id, secret);
  });

  test("a server already running without the variable: the soldier still has it", async () => {
    await using f = await tmuxField(HARNESS);
    expect(f.tmux("new-session", "-d", "-s", "mine").code).toBe(0);
    const secret = `sk-ant-api03-${crypto.randomUUID()}`;
    const id = await dispatchWithSecret(f, secret);
    expect(f.tmux("show-environment", "-g", "ANTHROPIC_API_KEY").out).not.toContain(secret);
    expectNowhereOnACommandLine(f, id, secret);
  });
});
