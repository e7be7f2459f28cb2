// RED-01 for a blocked soldier's question: the dialog is parsed from raw pane text, and its question
// and options are redacted before the sentinel stores them in the task (or anything else it writes).
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runPass } from "../../src/sentinel/pass";
import { loadTask, taskPath } from "../../src/state/tasks";
import { addAgent, createWorkspace, setPaneText } from "../fakes/herdr-control";
import { taskId, world } from "../sentinel-kit";

const GITHUB = "ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const ANTHROPIC = "sk-ant-api03-bbbbbbbbbbbbbbbbbbbbbbbb";
const AWS = "AKIAIOSFODNN7EXAMPLE";
const URL_PASSWORD = "hunter2";
const SECRETS = [GITHUB, ANTHROPIC, AWS, URL_PASSWORD];

/** Everything the pass wrote for the project: the task file, every wake, and the log lines. */
function written(w: ReturnType<typeof world>, paths: { wakesDir: string }, file: string): string {
  let wakes: string[] = [];
  try {
    wakes = readdirSync(paths.wakesDir).map((n) => readFileSync(join(paths.wakesDir, n), "utf8"));
  } catch {
    // no wakes directory: nothing written there
  }
  return [readFileSync(file, "utf8"), ...wakes, w.logs.join("\n")].join("\n");
}

/** One pass over a running task whose soldier herdr reports blocked with `pane` on screen. */
async function blockedWith(w: ReturnType<typeof world>, pane: string) {
  const { paths } = w.addProject();
  const ws = createWorkspace(w.herdr);
  addAgent(w.herdr, ws.pane_id, { name: "vx-ask", kind: "claude", status: "blocked" });
  setPaneText(w.herdr, "vx-ask", pane, "recent");
  setPaneText(w.herdr, "vx-ask", pane, "visible");
  const id = taskId();
  w.writeTask(paths, { id, herdr_agent_name: "vx-ask" });
  await runPass(w.ctx);
  const task = loadTask(paths, id)?.value;
  return { task, disk: written(w, paths, taskPath(paths, id)) };
}

describe("a blocked soldier's question is stored redacted", () => {
  test("a modal dialog: secrets in the question and in options", async () => {
    const dialog = [
      "☐ Deploy",
      "",
      `Push the release with token ${GITHUB} to the remote?`,
      "",
      `❯ 1. Use ${ANTHROPIC}`,
      `  2. Use ${AWS} instead`,
      `  3. Clone https://bob:${URL_PASSWORD}@git.example.com/r.git first`,
      "  4. Type something.",
      "  5. Chat about this",
      "",
      "Enter to select · ↑/↓ to navigate · Esc to cancel",
    ].join("\n");
    using w = world();
    const { task, disk } = await blockedWith(w, dialog);
    expect(task?.status).toBe("blocked");
    expect(task?.decision).toMatchObject({
      kind: "modal",
      question: "Push the release with token [redacted-secret] to the remote?",
      options: ["Use [redacted-secret]", "Use [redacted-secret] instead", "Clone https://[redacted-secret]@git.example.com/r.git first", "Type something.", "Chat about this"],
    });
    for (const secret of SECRETS) expect(disk).not.toContain(secret);
  });

  test("a dialog only the prose fallback parses: secrets in the question and in options", async () => {
    const pane = ["⏺ The deploy needs credentials.", "", `⏺ Deploy as ${AWS} or with the other account?`, `  - the key ${ANTHROPIC}`, `  - the token ${GITHUB}`, ""].join("\n");
    using w = world();
    const { task, disk } = await blockedWith(w, pane);
    expect(task?.status).toBe("blocked");
    expect(task?.decision).toMatchObject({
      kind: "modal",
      question: "Deploy as [redacted-secret] or with the other account?",
      options: ["the key [redacted-secret]", "the token [redacted-secret]"],
    });
    for (const secret of SECRETS) expect(disk).not.toContain(secret);
  });
});
