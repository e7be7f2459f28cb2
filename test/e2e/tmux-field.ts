/**
 * A soldier field whose tmux server is the test's own (TMUX_TMPDIR under its HOME), with no herdr
 * in the caller's environment and a stand-in harness on PATH; disposal kills the server.
 */
import { join } from "node:path";
import { writeExecutable } from "../helpers";
import { type Field, field } from "./soldier-field";

// A stand-in harness for the launch plumbing only: it shows a prompt and echoes what it is given.
// How real harnesses report is proven in the compat suite.
// The terminal's own echo is off so each line it is given shows once.
export const HARNESS = `#!/bin/sh\nprintf '%s\\n' "$@" > "$HOME/argv"\n${Bun.which("stty")} -echo\nprintf '\\342\\235\\257 \\n'\nexec cat\n`;

export async function tmuxField(harness = HARNESS, opts: { name?: string } = {}): Promise<Field & { tmux(...args: string[]): { code: number; out: string } }> {
  const f = await field(opts);
  writeExecutable(join(f.bin, "claude"), harness);
  f.env.TMUX_TMPDIR = f.home;
  delete f.env.HERDR_WORKSPACE_ID;
  delete f.env.HERDR_PANE_ID;
  const tmux = (...args: string[]) => {
    const r = Bun.spawnSync(["tmux", ...args], { env: f.env, stdout: "pipe", stderr: "pipe" });
    return { code: r.exitCode, out: r.stdout.toString() };
  };
  const dispose = f[Symbol.asyncDispose].bind(f);
  return Object.assign(f, {
    tmux,
    async [Symbol.asyncDispose]() {
      tmux("kill-server");
      await dispose();
    },
  });
}

/** A harness that gets every byte at once (non-canonical input), so a single key shows on screen. */
export const RAW_HARNESS = `#!/bin/sh\n${Bun.which("stty")} -icanon -echo\nprintf '\\342\\235\\257 \\n'\nexec cat\n`;
