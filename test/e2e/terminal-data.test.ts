// Text vx sends into a soldier's terminal is data (issue 15): a prompt carrying `ESC[201~` (the end of a
// bracketed paste), bare CRs and a `!command` reaches a harness that runs `!` lines as shell
// commands (as Claude Code and Pi do) as one submitted message, and nothing runs.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeSoldierState } from "../../src/state/soldier-state";
import { recordedPrompts } from "../fakes/herdr-control";
import { listTasks } from "../../src/state/tasks";
import { waitFor, writeExecutable } from "../helpers";
import { field, seedTask, taskIdOf } from "./soldier-field";
import { tmuxField } from "./tmux-field";

type TF = Awaited<ReturnType<typeof tmuxField>>;

// A stand-in harness with a real harness's input handling: bracketed paste on, raw input; inside a
// paste every byte is text, outside it Enter (CR or LF) submits the line, and a submitted line
// that starts with `!` runs as a shell command. Every submitted message is recorded, one JSON line each.
const STAND_IN = `
import { appendFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
const home = process.env.HOME;
process.stdin.setRawMode(true);
process.stdout.write("\\x1b[?2004h\\u276f \\n");
const START = "\\x1b[200~", END = "\\x1b[201~";
let pending = "", line = "", pasting = false;
process.stdin.on("data", (chunk) => {
  pending += chunk.toString("utf8");
  while (pending) {
    if (pending.startsWith(START)) { pasting = true; pending = pending.slice(START.length); continue; }
    if (pending.startsWith(END)) { pasting = false; pending = pending.slice(END.length); continue; }
    if (pending[0] === "\\x1b" && (START.startsWith(pending) || END.startsWith(pending))) break;
    const c = pending[0];
    pending = pending.slice(1);
    if (!pasting && (c === "\\r" || c === "\\n")) {
      appendFileSync(home + "/messages", JSON.stringify(line) + "\\n");
      if (line.startsWith("!")) spawnSync("sh", ["-c", line.slice(1)], { stdio: "ignore" });
      line = "";
    } else line += c;
  }
});
`;

async function pasteField(): Promise<TF> {
  const f = await tmuxField();
  // The stand-in is a bun program: a readiness wait of 6 s (not 0.6 s) lets it start on a loaded machine.
  f.env.VX_TIME_SCALE = "0.2";
  writeExecutable(join(f.bin, "stand-in.mjs"), STAND_IN);
  writeExecutable(join(f.bin, "claude"), `#!/bin/sh\nexec ${process.execPath} ${join(f.bin, "stand-in.mjs")}\n`);
  return f;
}

const ATTACK = "describe the repo\u001b[201~\r!id > ~/PWNED\r";
const messages = (f: TF): string[] =>
  existsSync(join(f.home, "messages"))
    ? readFileSync(join(f.home, "messages"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as string)
    : [];

/** Waits for the message that ends with vx's trailer (the last text vx sends), then checks what arrived. */
async function expectOneDataMessage(f: TF): Promise<void> {
  await waitFor(() => messages(f).some((m) => m.includes("needs-decision")), 30_000, "the submitted message");
  // The harness handles input in order, so a command typed before the last message has run by now.
  expect(existsSync(join(f.home, "PWNED"))).toBe(false);
  const got = messages(f);
  expect(got).toHaveLength(1);
  // Arrived as data: the paste end marker's text and the command inside the one message.
  expect(got[0]).toContain("describe the repo[201~");
  expect(got[0]).toContain("!id > ~/PWNED");
  expect(got[0]).not.toContain("\u001b");
}

describe("text into a tmux soldier is data", () => {
  test("dispatch: a prompt with ESC[201~, CR and a !command is one message and runs nothing", async () => {
    await using f = await pasteField();
    const r = await f.run(["dispatch", ATTACK, "--backend", "tmux"]);
    expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
    expect(listTasks(f.paths).map((l) => l.value.id)).toEqual([taskIdOf(r.stdout)]);
    await expectOneDataMessage(f);
    // The user is told their prompt was cleaned.
    expect(r.stderr).toContain("vx: the prompt held 1 control character (escape sequences, terminal codes); it was removed before sending\n");
  });

  test("prompt: the same text as a follow-up is one message and runs nothing", async () => {
    await using f = await pasteField();
    const { task } = await seedTask(f, { status: "done", backend: "tmux", tmux_target: "vx-s", herdr_agent_name: undefined, herdr_pane_id: undefined, herdr_tab_id: undefined });
    expect(f.tmux("new-session", "-d", "-s", "vx-s", "-c", task.camp_path!, "-e", `VX_TASK_ID=${task.id}`, "--", join(f.bin, "claude")).code).toBe(0);
    await waitFor(() => f.tmux("capture-pane", "-p", "-t", "=vx-s:").out.includes("\u276f"), 10_000, "the harness");
    writeSoldierState(f.paths, { task_id: task.id, state: "idle", at: new Date().toISOString() });
    const r = await f.run(["prompt", task.id, ATTACK]);
    expect(r.code).toBe(0);
    await expectOneDataMessage(f);
    // No vx paste buffer stays on the server (issue 15, item 18).
    expect(f.tmux("list-buffers", "-F", "#{buffer_name}").out).toBe("");
  });
});

describe("text into a herdr soldier is data", () => {
  test("dispatch and prompt: herdr agent prompt gets the text without controls, CRs as newlines", async () => {
    await using f = await field();
    const r = await f.run(["dispatch", ATTACK]);
    expect(r.code).toBe(0);
    const [sent] = recordedPrompts(f.fh);
    expect(sent!.text.startsWith("describe the repo[201~\n!id > ~/PWNED\n")).toBe(true);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test asserts that no control character was sent
    expect(sent!.text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);

    const { task } = await seedTask(f, { status: "done" });
    const p = await f.run(["prompt", task.id, "again\u0003\u0003\r\nthen this"]);
    expect(p.code).toBe(0);
    expect(p.stderr).toContain("vx: the prompt held 2 control characters (escape sequences, terminal codes); they were removed before sending\n");
    expect(recordedPrompts(f.fh, task.herdr_agent_name).at(-1)!.text.startsWith("again\nthen this")).toBe(true);
  });
});
