// `vx wait` (WAIT-03, RED-01) through the compiled binary: every line it prints or appends to its
// log file that carries pane or soldier text (the pane tail, the question, the ending note) is
// redacted, whether that text comes from the live pane or from a task file written unredacted.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { addAgent, createWorkspace, installFakeHerdr, setPaneText } from "../fakes/herdr-control";
import { taskFixture, vx, writeTaskFile } from "../helpers";
import { initializedSandbox } from "../init-project";

const ID = "fedcba9876543210";
const GITHUB = "ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const ANTHROPIC = "sk-ant-api03-bbbbbbbbbbbbbbbbbbbbbbbb";
const AWS = "AKIAIOSFODNN7EXAMPLE";
const LEAKS = [GITHUB, ANTHROPIC, AWS, "hunter2", "MIIEpAIBAAKCAQEA"];

function task(over: Record<string, unknown>) {
  const at = "2026-11-30T10:00:00Z";
  return taskFixture({ id: ID, created_at: at, updated_at: at, camp_branch: `vexillum/${ID}`, ...over });
}

describe("vx wait redacts what it shows of the soldier", () => {
  test("the live pane tail, on stdout and in the log file", async () => {
    using s = await initializedSandbox({ VX_TIME_SCALE: "0.01" });
    const fh = installFakeHerdr(s.bin);
    const env = { ...s.env, ...fh };
    const pane = createWorkspace(fh, { cwd: s.project }).pane_id;
    addAgent(fh, pane, { name: "vx-deploy", status: "done" });
    setPaneText(
      fh,
      "vx-deploy",
      [
        "deploying",
        `pushed with ${GITHUB}`,
        "-----BEGIN RSA PRIVATE KEY-----",
        "MIIEpAIBAAKCAQEA7bq98",
        "-----END RSA PRIVATE KEY-----",
        `aws ${AWS} configured`,
        "git push https://bob:hunter2@git.example.com/r.git",
        `export ANTHROPIC_API_KEY=${ANTHROPIC}`,
        "",
      ].join("\n"),
    );
    writeTaskFile(s.home, s.project, task({ status: "done", backend: "herdr", herdr_pane_id: pane, herdr_agent_name: "vx-deploy", harness: "claude" }));
    const log = join(s.home, "wait.log");
    const r = await vx(["wait", ID, "--log-file", log, "--pane-tail-lines", "6"], { cwd: s.project, env });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        `VX_WAIT_START: task=${ID} status=done poll=0.05s max_wait=72s log=${log}`,
        `VX_WAIT_PANE_TAIL: task=${ID} lines=6 source=live`,
        "deploying",
        "pushed with [redacted-secret]",
        "[redacted private key block]",
        "aws [redacted-secret] configured",
        "git push https://[redacted-secret]@git.example.com/r.git",
        "[redacted sensitive line]",
        `VX_WAIT_DONE: task=${ID} status=done`,
        "",
      ].join("\n"),
    );
    expect(readFileSync(log, "utf8")).toBe(r.stdout);
    for (const leak of LEAKS) expect(r.stdout).not.toContain(leak);
  });

  test("a task file written unredacted: question, ending note and recorded tail", async () => {
    using s = await initializedSandbox({ VX_TIME_SCALE: "0.01" });
    const decision = { question: `Rotate ${GITHUB}\n  or keep ${AWS}?`, options: [], asked_at: "2026-11-30T12:00:00Z", kind: "prose" };
    const output = [`token in use: ${ANTHROPIC}`, "waiting", `[vexillum] the soldier asked about ${GITHUB}`].join("\n");
    writeTaskFile(s.home, s.project, task({ status: "blocked", decision, output }));
    const log = join(s.home, "wait.log");
    const r = await vx(["wait", ID, "--log-file", log], { cwd: s.project, env: s.env });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(2);
    expect(r.stdout).toBe(
      [
        `VX_WAIT_START: task=${ID} status=blocked poll=0.05s max_wait=72s log=${log}`,
        "VX_WAIT_QUESTION: Rotate [redacted-secret] or keep [redacted-secret]?",
        "VX_WAIT_NOTE: [vexillum] the soldier asked about [redacted-secret]",
        `VX_WAIT_PANE_TAIL: task=${ID} lines=3 source=recorded`,
        "token in use: [redacted-secret]",
        "waiting",
        "[vexillum] the soldier asked about [redacted-secret]",
        `VX_WAIT_TERMINAL: task=${ID} status=blocked`,
        "",
      ].join("\n"),
    );
    const logged = readFileSync(log, "utf8");
    expect(logged).toBe(r.stdout);
    for (const leak of LEAKS) expect(logged).not.toContain(leak);
  });
});
