/**
 * The person's keyboard and eyes on the real herdr's panes, the same calls a compat test makes on
 * its tmux panes (`Terminal`), so one `say` or `screenShows` serves both: a pane is named by its
 * herdr pane id, text goes in with `pane send-text`, keys (given by their tmux names) with `pane
 * send-keys`, and the screen is `pane read --source visible`, the rows as herdr draws them.
 */
import type { RealHerdr } from "../herdr-real";
import type { Terminal } from "./tmux";

/** tmux key names the compat tests use, as herdr's `send-keys` spells them. */
const KEYS: Record<string, string> = { Enter: "enter", Escape: "esc", "C-u": "ctrl+u", "C-c": "ctrl+c", Down: "down", Up: "up", Tab: "tab", BSpace: "backspace" };

function keyName(k: string): string {
  const name = KEYS[k];
  if (!name) throw new Error(`herdr-term: no herdr name for the tmux key ${k}`);
  return name;
}

export function herdrTerminal(h: RealHerdr): Terminal {
  const must = (args: string[]) => {
    const r = h.run(args);
    if (r.code !== 0) throw new Error(`herdr ${args.slice(0, 2).join(" ")} failed (exit ${r.code}): ${r.stderr.trim() || r.stdout.trim()}`);
    return r.stdout;
  };
  return {
    type: (pane, text) => void must(["pane", "send-text", pane, text]),
    keys: (pane, ...keys) => void must(["pane", "send-keys", pane, ...keys.map(keyName)]),
    // A pane that is gone reads as an empty screen, as tmux's capture of a dead session does.
    screen: (pane) => {
      const r = h.run(["pane", "read", pane, "--source", "visible"]);
      return r.code === 0 ? r.stdout : "";
    },
  };
}
