/**
 * The soldier-command field on the real herdr 0.8.2: an initialized project, a private herdr server
 * whose workspace root pane is the caller's (`HERDR_WORKSPACE_ID`, `HERDR_PANE_ID`), and a scripted
 * `claude` on the server's PATH (herdr takes it for Claude Code by its name and reads its screens
 * with Claude Code's rules). Disposal stops every sentinel the test started (verified by pid) and
 * then the server.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { projectPaths } from "../../src/state/paths";
import { type Sandbox, sandbox } from "../helpers";
import { type RealHerdr, realHerdrBinary, startRealHerdr } from "../herdr-real";
import { initProject } from "../init-project";
import { sandboxPath } from "../tool-path";
import { fieldBase } from "./soldier-field";

/**
 * The soldier: Claude Code's idle box; a prompt (typed by herdr, one line after another) is one turn,
 * its first line the mission: one that names a changelog commits CHANGELOG.md in the camp, one that
 * says `slow` works until the pane goes, any other answers after a second.
 */
const SOLDIER = `#!/bin/bash
stty -echo 2>/dev/null
rule=$(printf '─%.0s' $(seq 40))
idle() { printf '\\033[H\\033[2J\\033]0;✳ soldier\\007'; printf '%s\\n' "scripted soldier" "$1" "$rule" "❯ " "$rule" "  ? for shortcuts"; }
work() { printf '\\033[H\\033[2J\\033]0;⠂ soldier\\007'; printf '%s\\n' "scripted soldier" "> $1" "✻ Working… (3s · esc to interrupt)"; }
idle ""
while IFS= read -r first; do
  while IFS= read -r -t 1 _; do :; done
  work "$first"
  case "$first" in
    *slow*) sleep 3600 ;;
    *changelog*) printf '# Changelog\\n' > CHANGELOG.md; git add CHANGELOG.md; git commit -q -m "add a changelog"; sleep 1; idle "⏺ Added CHANGELOG.md and committed it." ;;
    *) sleep 1; idle "⏺ Done: $first" ;;
  esac
done
`;

export type RealField = Sandbox & { h: RealHerdr; ws: { workspace: string; tab: string; pane: string } } & ReturnType<typeof fieldBase>;

/** A fresh field; `scale` is VX_TIME_SCALE. */
export async function realField(opts: { scale?: string } = {}): Promise<RealField> {
  const s = sandbox();
  const prog = join(s.home, "..", "soldier-bin");
  mkdirSync(prog);
  writeFileSync(join(prog, "claude"), SOLDIER, { mode: 0o755 });
  for (const [name, target] of [
    ["stty", Bun.which("stty")],
    ["seq", Bun.which("seq")],
    ["herdr", realHerdrBinary()],
  ]) {
    if (target) symlinkSync(target, join(prog, name!));
  }
  // The server's environment is what its panes, and so the soldier, get (git's identity included).
  const git = Object.fromEntries(Object.entries(s.env).filter(([k]) => k.startsWith("GIT_")));
  const h = await startRealHerdr({ env: { PATH: sandboxPath(prog), ...git } });
  try {
    const ws = h.workspace(s.project);
    const env: Record<string, string> = {
      ...s.env,
      PATH: sandboxPath(s.bin, prog),
      HERDR_SOCKET_PATH: h.socket,
      HERDR_WORKSPACE_ID: ws.workspace,
      HERDR_PANE_ID: ws.pane,
      VX_TIME_SCALE: opts.scale ?? "0.2",
    };
    await initProject(s.project, env);
    const paths = projectPaths(join(s.home, ".vexillum"), s.project);
    return Object.assign(
      s,
      { h, ws },
      fieldBase(s, env, paths, () => h.stop()),
    );
  } catch (err) {
    await h.stop();
    s[Symbol.dispose]();
    throw err;
  }
}
