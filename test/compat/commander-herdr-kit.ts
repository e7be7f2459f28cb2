/**
 * Each harness as the commander in a real herdr 0.8.2 pane (issue 24): the person starts it with
 * `herdr pane run` in the root pane of a workspace at the project, under the harness's default
 * settings (the project trusted by nobody yet), and answers its trust and first-run screens as
 * they come; the sentinel wakes it. The idle, busy and draft checks are the commander kit's
 * (`commander-tmux-kit.ts`), run through the world's terminal: herdr's panes.
 */
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { screenState } from "../../src/backends/commander-screen";
import { waitFor } from "../helpers";
import type { Settle } from "./commander-tmux-kit";
import type { HarnessName } from "./harnesses";
import { type World, type WorldOptions, world } from "./world";

/**
 * A screen the person answers on the way to the harness's input box, by the keys they press;
 * `shows` is looked for in the bottom BOTTOM_ROWS rows, where a waiting dialog's options are
 * (an answered one can stay drawn above a restarted harness's input box).
 */
export type FirstRun = {
  name: string;
  shows: RegExp;
  keys: string[];
  /** Shown only sometimes; otherwise the person, knowing it comes, waits for it before taking the box for ready. */
  maybe?: boolean;
};

const BOTTOM_ROWS = 8;
const bottom = (screen: string) => screen.split("\n").filter((l) => l.trim() !== "").slice(-BOTTOM_ROWS).join("\n");

/** A person presses a key again when the screen still shows what it answered after this long. */
const REPRESS_MS = 5000;
/**
 * How long the input box must show, no first-run screen over it, before the person takes it for
 * ready: Gemini CLI draws its box before its folder-trust dialog, and again as it restarts.
 */
const READY_HOLD_MS = 3000;

/**
 * A world on the real herdr. A demo soldier dispatched with `--backend tmux` from a herdr pane
 * (the registration's) gets a tmux server in the world's own TMUX_TMPDIR.
 */
export function herdrWorld(opts: WorldOptions): Promise<World> {
  return world({
    ...opts,
    herdr: "real",
    prepare: (x) => {
      const tmuxDir = join(dirname(x.home), "tmux");
      mkdirSync(tmuxDir, { recursive: true });
      return { ...(opts.prepare?.(x) ?? {}), TMUX_TMPDIR: tmuxDir };
    },
  });
}

/** herdr's status for the agent in `pane` (`agent_not_found` while it detects none). */
export function herdrStatus(w: World, pane: string): string {
  const r = w.herdr!.run(["agent", "get", pane]);
  if (r.code !== 0) return (r.stderr.match(/"code":"([a-z_]+)"/) ?? [])[1] ?? `exit ${r.code}`;
  return JSON.parse(r.stdout).result.agent.agent_status;
}

/**
 * The person types `command` into the shell of a new workspace's root pane at the project and
 * answers each first-run screen (once it shows, again if it still shows REPRESS_MS later) until
 * the harness shows `ready`. Each answered screen is printed with the status herdr reported for
 * it. Returns the pane id.
 */
export async function startInPane(w: World, command: string, ready: RegExp, firstRun: FirstRun[], timeoutMs = 240_000): Promise<string> {
  const { pane } = w.herdr!.workspace(w.project);
  const ran = w.herdr!.run(["pane", "run", pane, command]);
  if (ran.code !== 0) throw new Error(`herdr pane run failed: ${ran.stderr}`);
  const pressed = new Map<string, number>();
  let readySince: number | undefined;
  try {
    await waitFor(() => {
      const screen = w.term.screen(pane);
      const shown = firstRun.some((f) => f.shows.test(bottom(screen)));
      const awaited = firstRun.some((f) => !f.maybe && !pressed.has(f.name));
      if (ready.test(screen) && !shown && !awaited) {
        readySince ??= Date.now();
        return Date.now() - readySince >= READY_HOLD_MS ? true : undefined;
      }
      readySince = undefined;
      for (const f of firstRun) {
        const last = pressed.get(f.name);
        if (!f.shows.test(bottom(screen)) || (last !== undefined && Date.now() - last < REPRESS_MS)) continue;
        if (last === undefined) console.log(`compat: ${command.split(" ")[0]} in a herdr pane: ${f.name} shown (herdr status: ${herdrStatus(w, pane)}); the person presses ${f.keys.join(", ")}`);
        for (const k of f.keys) w.term.keys(pane, k);
        pressed.set(f.name, Date.now());
        return undefined;
      }
      return undefined;
    }, timeoutMs, `${command} to show ${ready}`);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n--- screen ---\n${w.term.screen(pane)}`);
  }
  return pane;
}

/**
 * The commander's turn is over and its input empty: herdr reports it idle (or done) and the
 * screen, by `inputEmpty`, shows nothing typed, at the same look.
 */
export function herdrSettled(w: World, pane: string, label: string, inputEmpty: (screen: string) => boolean): Settle {
  return async (what) => {
    try {
      await waitFor(() => (["idle", "done"].includes(herdrStatus(w, pane)) && inputEmpty(w.term.screen(pane)) ? true : undefined), 120_000, `${label} ${what}`);
    } catch (err) {
      throw new Error(`${(err as Error).message}\n--- herdr status: ${herdrStatus(w, pane)} ---\n--- screen ---\n${w.term.screen(pane)}`);
    }
  };
}

/** A harness with the sentinel's screen rules: idle and an empty input line by its module. */
export const byItsRules = (h: HarnessName) => (screen: string) => {
  const s = screenState(h, screen);
  return s.idle && s.inputEmpty;
};
