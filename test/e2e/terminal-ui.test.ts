// init's consola prompts and doctor's coloured report (issue 19 item 4) answered through a real pseudo-terminal: util-linux
// `script` runs the compiled vx with stdin, stdout and stderr on a pty; keys are written to it
// once the question they answer is on the screen.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { VX_BIN, git, sandbox, waitFor, writeExecutable } from "../helpers";

const SCRIPT = Bun.which("script");
const STTY = Bun.which("stty");
const DOWN = "\x1b[B";
const ENTER = "\r";

/** `script -c` takes one command string: built from the fixed binary path only, never user text. */
function ptyCommand(args: string[]): string[] {
  if (![VX_BIN, STTY ?? ""].every((p) => /^[\w./-]+$/.test(p)) || !args.every((a) => /^[\w-]+$/.test(a))) throw new Error("unsafe pty command");
  // A pty made without a terminal on stdin is 0 columns wide: give it a real size first.
  return [SCRIPT as string, "-qfec", `${STTY} cols 120 rows 40; exec ${[VX_BIN, ...args].join(" ")}`, "/dev/null"];
}

/** Runs `vx init` on a pty, answering each [question, keys] in turn; returns its exit code and screen. */
function initOnPty(cwd: string, env: Record<string, string>, steps: [string, string][], args: string[] = []) {
  return onPty(["init", ...args], cwd, env, steps);
}

async function onPty(argv: string[], cwd: string, env: Record<string, string>, steps: [string, string][]) {
  const proc = Bun.spawn(ptyCommand(argv), {
    cwd,
    env: { ...env, SHELL: "/bin/sh", TERM: "xterm-256color" },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  let screen = "";
  const reading = (async () => {
    const dec = new TextDecoder();
    for await (const chunk of proc.stdout) screen += dec.decode(chunk, { stream: true });
  })();
  try {
    let from = 0;
    for (const [question, keys] of steps) {
      await waitFor(() => screen.indexOf(question, from) >= 0, 30_000, `the question "${question}"`);
      from = screen.indexOf(question, from) + question.length;
      proc.stdin.write(keys);
      await proc.stdin.flush();
    }
    const code = await proc.exited;
    await reading;
    return { code, screen };
  } finally {
    proc.kill();
  }
}

/** herdr on PATH, so init's backend default is herdr (CMD-INIT-01) and the arrows start there. */
function withHerdr<T extends { bin: string }>(s: T): T {
  writeExecutable(join(s.bin, "herdr"), "#!/bin/sh\nexit 0\n");
  return s;
}

function config(project: string): { commander: string; backend: string; harness: string } {
  return JSON.parse(readFileSync(join(project, ".vexillum/config.json"), "utf8"));
}

describe.skipIf(!SCRIPT || !STTY)("vx init on a terminal (consola prompts)", () => {
  test("confirms and the three selects: arrows pick pi, tmux and codex", async () => {
    using s = withHerdr(sandbox());
    const { code, screen } = await initOnPty(s.project, s.env, [
      ["Put the vexillum commander block in CLAUDE.md instead?", ENTER],
      ["Install the vexillum skill?", "n"],
      ["Which harness is the commander?", `${DOWN}${ENTER}`],
      ["Where do soldiers' terminals live?", `${DOWN}${ENTER}`],
      ["Which harness do soldiers run by default?", `${DOWN}${ENTER}`],
      ["Continue?", "y"],
    ]);
    expect(screen).toContain("created CLAUDE.md");
    expect(code).toBe(0);
    expect(config(s.project)).toMatchObject({ commander: "pi", backend: "tmux", harness: "codex" });
  });

  test("Enter keeps each default; flags given are not asked", async () => {
    using s = sandbox();
    const { code, screen } = await initOnPty(
      s.project,
      s.env,
      [
        ["Put the vexillum commander block in CLAUDE.md instead?", "n"],
        ["Install the vexillum skill?", ENTER],
        ["Which harness is the commander?", ENTER],
        ["Continue?", ENTER],
      ],
      ["--backend", "tmux", "--harness", "opencode"],
    );
    expect(code).toBe(0);
    expect(screen).not.toContain("Where do soldiers' terminals live?");
    expect(screen).not.toContain("Which harness do soldiers run by default?");
    expect(readFileSync(join(s.project, "AGENTS.md"), "utf8")).toContain("<!-- BEGIN VEXILLUM");
    expect(config(s.project)).toMatchObject({ commander: "claude", backend: "tmux", harness: "opencode" });
  });

  test("declining Continue changes nothing", async () => {
    using s = sandbox();
    const { code } = await initOnPty(s.project, s.env, [
      ["Put the vexillum commander block in CLAUDE.md instead?", ENTER],
      ["Install the vexillum skill?", ENTER],
      ["Which harness is the commander?", ENTER],
      ["Where do soldiers' terminals live?", ENTER],
      ["Which harness do soldiers run by default?", ENTER],
      ["Continue?", "n"],
    ]);
    expect(code).toBe(1);
    expect(git(s.project, "status", "--porcelain")).toBe("");
  });

  test("Ctrl-C at a select stops with nothing changed, saying how to go on", async () => {
    using s = sandbox();
    const { code, screen } = await initOnPty(s.project, s.env, [
      ["Put the vexillum commander block in CLAUDE.md instead?", ENTER],
      ["Install the vexillum skill?", ENTER],
      ["Which harness is the commander?", "\x03"],
    ]);
    expect(code).toBe(1);
    expect(screen).toContain("vx: no answer (input closed or not understood) - nothing further was changed");
    expect(git(s.project, "status", "--porcelain")).toBe("");
  });

  test("NO_COLOR keeps the plain [Y/n] questions on the same terminal", async () => {
    using s = withHerdr(sandbox());
    const { code, screen } = await initOnPty(s.project, { ...s.env, NO_COLOR: "1" }, [
      ["Put the vexillum commander block in CLAUDE.md instead? [Y/n]", "\n"],
      ["Install the vexillum skill? [Y/n]", "\n"],
      ["Continue? [Y/n]", "\n"],
    ]);
    expect(code).toBe(0);
    expect(screen).not.toContain("Which harness is the commander?");
    expect(config(s.project)).toMatchObject({ commander: "claude", backend: "herdr", harness: "claude" });
  });
});

describe.skipIf(!SCRIPT || !STTY)("vx doctor on a terminal", () => {
  test("draws each status with consola's colours and icons; NO_COLOR gives the plain lines", async () => {
    using s = sandbox();
    expect(Bun.spawnSync([VX_BIN, "init", "--yes"], { cwd: s.project, env: s.env }).exitCode).toBe(0);
    const fancy = await onPty(["doctor"], s.project, s.env, []);
    expect(fancy.screen).toContain("\x1b[32m✔ ok\x1b[39m git repository");
    expect(fancy.screen).not.toContain("[ok] git repository");
    const plain = await onPty(["doctor"], s.project, { ...s.env, NO_COLOR: "1" }, []);
    expect(plain.screen).toContain("[ok] git repository");
    expect(plain.screen).not.toContain("\x1b[");
    expect(fancy.code).toBe(plain.code);
  });
});
