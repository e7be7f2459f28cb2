/**
 * Each harness as the commander, the one place that says how it is started (issue 24): under its
 * default settings, the project trusted by nobody yet, the person types its command into a pane
 * (herdr: `herdr pane run` in the root pane of a workspace at the project; tmux: a plain pane, no
 * herdr variables) and answers its trust and first-run screens as they come. The sentinel runs on
 * the faster clock. The compat tests and `bench/herdr-wake.ts` take their commanders from here;
 * the checks are `commander-checks.ts`.
 */
import { afterAll, beforeAll, describe, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { screenState } from "../../src/backends/commander-screen";
import { DECISION_RE } from "../../src/harnesses/gemini";
import { git, stopSentinels, waitFor } from "../helpers";
import { claudeEnv, seedClaude } from "./claude-setup";
import { type Seat, type Settle, firstTurn, wakeChecks } from "./commander-checks";
import { registerFromPane, startPlain, startSentinel } from "./commander-kit";
import { seedCodex, stopCodexDaemon } from "./codex-setup";
import { COPILOT_MODEL, copilotEnv, seedCopilot } from "./copilot-setup";
import { GEMINI_MODEL, geminiEnv, seedGemini } from "./gemini-setup";
import type { HarnessName } from "./harnesses";
import { seedOpencode } from "./opencode-setup";
import { PI_ENV, seedPi } from "./pi-setup";
import { type World, type WorldOptions, world } from "./world";

export type On = "herdr" | "tmux";

/**
 * A screen the person answers on the way to the harness's input box, by the keys they press;
 * `shows` is looked for in the bottom BOTTOM_ROWS rows, where a waiting dialog's options are
 * (an answered one can stay drawn above a restarted harness's input box).
 */
export type FirstRun = { name: string; shows: RegExp; keys: string[] };

const BOTTOM_ROWS = 8;
const bottom = (screen: string) =>
  screen
    .split("\n")
    .filter((l) => l.trim() !== "")
    .slice(-BOTTOM_ROWS)
    .join("\n");
/** A person presses a key again when the screen still shows what it answered after this long. */
const REPRESS_MS = 5000;
/** How long a person looks at a first-run screen before the first key. */
const READ_MS = 1500;
/** How long a person waits to see a key take effect before the next one. */
const KEY_SHOWN_MS = 2000;
/**
 * How long the input box must show, no first-run screen over it, before the person takes it for
 * ready: Gemini CLI draws its box before its folder-trust dialog, and again as it restarts.
 */
const READY_HOLD_MS = 3000;

/** herdr's status for the agent in `pane` (`agent_not_found` while it detects none). */
export function herdrStatus(w: World, pane: string): string {
  const r = w.herdr!.run(["agent", "get", pane]);
  if (r.code !== 0) return (r.stderr.match(/"code":"([a-z_]+)"/) ?? [])[1] ?? `exit ${r.code}`;
  return JSON.parse(r.stdout).result.agent.agent_status;
}

/**
 * The person types `command` into a new pane at the project and answers each first-run screen
 * (once it shows, again if it still shows REPRESS_MS later; the ones listed are known to come, so
 * the box is not taken for ready before they did) until the harness shows `ready`. Each answered
 * screen is printed, with the status herdr reported for it. Returns the pane (herdr's id, or the
 * tmux session's name).
 */
export async function startCommander(w: World, command: string, ready: RegExp, firstRun: FirstRun[], timeoutMs = 240_000): Promise<string> {
  let pane = "cmd";
  if (w.herdr) {
    pane = w.herdr.workspace(w.project).pane;
    const ran = w.herdr.run(["pane", "run", pane, command]);
    if (ran.code !== 0) throw new Error(`herdr pane run failed: ${ran.stderr}`);
  } else {
    startPlain(w, pane, ["sh", "-c", command]);
  }
  // When each screen's whole answer went in (for the ready check), and how far into its keys the person is.
  const pressed = new Map<string, number>();
  const reading = new Map<string, { since: number; key: number; at?: number; screen?: string }>();
  let readySince: number | undefined;
  const program = command.split(" ")[0];
  try {
    await waitFor(
      () => {
        const screen = w.term.screen(pane);
        const shown = firstRun.find((f) => f.shows.test(bottom(screen)));
        if (ready.test(screen) && !shown && firstRun.every((f) => pressed.has(f.name))) {
          readySince ??= Date.now();
          return Date.now() - readySince >= READY_HOLD_MS ? true : undefined;
        }
        readySince = undefined;
        if (!shown) return undefined;
        const now = Date.now();
        let r = reading.get(shown.name);
        if (!r) reading.set(shown.name, (r = { since: now, key: 0 }));
        // A person reads the screen before answering it (a key pressed while a loaded harness still
        // sets its dialog up is lost: Claude Code then took the Enter alone, on "No, exit").
        if (now - r.since < READ_MS) return undefined;
        if (r.key === shown.keys.length) {
          // Answered and still shown: press the whole answer again, after a while.
          if (now - (r.at ?? now) >= REPRESS_MS) reading.set(shown.name, { since: now - READ_MS, key: 0 });
          return undefined;
        }
        // One key at a time, the next once the screen shows the last one (or after a while without).
        if (r.key > 0 && screen === r.screen && now - (r.at ?? now) < KEY_SHOWN_MS) return undefined;
        if (r.key === 0 && !pressed.has(shown.name)) {
          const status = w.herdr ? ` (herdr status: ${herdrStatus(w, pane)})` : "";
          console.log(`compat: ${program} ${w.herdr ? "in a herdr pane" : "in plain tmux"}: ${shown.name} shown${status}; the person presses ${shown.keys.join(", ")}`);
        }
        w.term.keys(pane, shown.keys[r.key]!);
        Object.assign(r, { key: r.key + 1, at: now, screen });
        if (r.key === shown.keys.length) pressed.set(shown.name, now);
        return undefined;
      },
      timeoutMs,
      `${command} to show ${ready}`,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}\n--- screen ---\n${w.term.screen(pane)}`);
  }
  return pane;
}

/**
 * The commander's turn is over and its input empty: the screen, by `inputEmpty`, shows nothing
 * typed and no turn running, and in a herdr pane herdr reports it idle (or done) at the same look.
 */
export function settledBy(w: World, pane: string, label: string, inputEmpty: (screen: string) => boolean): Settle {
  const idle = () => !w.herdr || ["idle", "done"].includes(herdrStatus(w, pane));
  return async (what) => {
    try {
      await waitFor(() => (idle() && inputEmpty(w.term.screen(pane)) ? true : undefined), 120_000, `${label} ${what}`);
    } catch (err) {
      const status = w.herdr ? `--- herdr status: ${herdrStatus(w, pane)} ---\n` : "";
      throw new Error(`${(err as Error).message}\n${status}--- screen ---\n${w.term.screen(pane)}`);
    }
  };
}

/** A harness with the sentinel's screen rules: idle and an empty input line by its module. */
const byItsRules = (h: HarnessName) => (screen: string) => {
  const s = screenState(h, screen);
  return s.idle && s.inputEmpty;
};

/** Claude Code's input line (the last `❯` row) holds nothing, and no turn runs. */
const claudeEmpty = (screen: string) => {
  const line = screen.split("\n").findLast((l) => l.trimStart().startsWith("❯"));
  return line?.trimStart().slice(1).trim() === "" && !/esc to interrupt/.test(screen);
};

/** Pi's editor (the rows between its last two full-width rules) holds nothing. */
const piEmpty = (screen: string) => {
  const rows = screen.split("\n");
  const rules = rows.flatMap((r, i) => (/^─{20,}\s*$/.test(r) ? [i] : [])).slice(-2);
  return rules.length === 2 && rows.slice(rules[0]! + 1, rules[1]).every((r) => r.trim() === "");
};

type Spec = {
  world: Omit<WorldOptions, "harness" | "commander">;
  /** What init wrote is committed first, as a user would (the harness reads the project's files). */
  commit?: boolean;
  command: string;
  ready: RegExp;
  firstRun: FirstRun[];
  readyMs?: number;
  /** Its input box empty and no turn running. */
  inputEmpty: (screen: string) => boolean;
  /** Woken through an await of its own (hook, extension, plugin): settled once it listens. */
  await: boolean;
  /** Registered by running `vx dispatch` from its shell tool; `allow`: the dialog asking to run it. */
  register?: { allow?: RegExp };
  /** The wake is typed into its box (a draft makes it wait). */
  typed: boolean;
  /** Keys that clear a draft. */
  clearKeys: string[];
};

const SPECS: Record<HarnessName, Spec> = {
  // A person who has used Claude Code before (onboarding done), in a project it has not seen; the
  // trust dialog's cursor starts on "No, exit".
  claude: {
    world: { prepare: (x) => (seedClaude(x.home, []), claudeEnv(x.models.url)) },
    command: "claude",
    ready: /^❯\s*$/m,
    firstRun: [{ name: "the folder-trust dialog", shows: /Yes, I trust this folder/, keys: ["Down", "Enter"] }],
    inputEmpty: claudeEmpty,
    await: true,
    typed: false,
    clearKeys: ["C-u"],
  },
  codex: {
    world: {
      prepare: (x) => {
        // Codex runs commands in a login shell: as a user would, ~/.profile puts vx on PATH.
        writeFileSync(join(x.home, ".profile"), `export PATH=${JSON.stringify(x.env.PATH)}\n`);
        return seedCodex(x.home, x.project, x.models.url, { untrusted: true });
      },
    },
    commit: true,
    command: "codex",
    ready: /Ask Codex to do anything/,
    // Enter takes "1. Trust and continue" (written into config.toml).
    firstRun: [{ name: "the folder-trust screen", shows: /1\. Trust and continue/, keys: ["Enter"] }],
    inputEmpty: byItsRules("codex"),
    await: false,
    register: {},
    typed: false,
    clearKeys: ["C-u"],
  },
  pi: {
    world: { env: PI_ENV, prepare: (x) => seedPi(x.home, x.models.url) },
    command: "pi",
    ready: /vexillum-wake\.ts/,
    firstRun: [],
    inputEmpty: piEmpty,
    await: true,
    typed: false,
    // Pi's ctrl-c clears a non-empty editor.
    clearKeys: ["C-c"],
  },
  opencode: {
    world: { prepare: (x) => seedOpencode(x.home, x.models.url) },
    commit: true,
    command: "opencode",
    ready: /Ask anything/,
    firstRun: [],
    // The first start installs OpenCode's own packages into its config dir (npm registry).
    readyMs: 600_000,
    inputEmpty: byItsRules("opencode"),
    await: true,
    typed: false,
    // OpenCode's ctrl-c clears a non-empty prompt.
    clearKeys: ["C-c"],
  },
  // YOLO: its shell tool runs vx without a confirmation per command; restarted after the trust
  // dialog it sometimes drops the flag, and the person allows the command instead.
  gemini: {
    world: { prepare: (x) => (seedGemini(x.home), geminiEnv(x.models.url)) },
    commit: true,
    command: `gemini --approval-mode yolo --model ${GEMINI_MODEL}`,
    ready: /Type your message or @path\/to\/file/,
    // Enter takes its first option, "Trust folder"; Gemini CLI then restarts.
    firstRun: [{ name: "the folder-trust dialog", shows: /● 1\. Trust folder/, keys: ["Enter"] }],
    inputEmpty: byItsRules("gemini"),
    await: false,
    register: { allow: DECISION_RE },
    typed: true,
    clearKeys: ["C-u"],
  },
  // --allow-all: its shell tool runs vx without a permission dialog per command. Keys typed while
  // it is still loading are lost: its idle footer first.
  copilot: {
    world: { env: { COPILOT_MODEL }, prepare: (x) => (seedCopilot(x.home, []), copilotEnv(x.home, x.models.url)) },
    commit: true,
    command: "copilot --allow-all",
    ready: /· (\/ commands|@ files)\b/,
    // Enter takes its first option, "Yes" (trusted for this session).
    firstRun: [{ name: "the folder-trust dialog", shows: /❯ 1\. Yes/, keys: ["Enter"] }],
    inputEmpty: byItsRules("copilot"),
    await: false,
    register: {},
    typed: true,
    clearKeys: ["C-u"],
  },
};

export type CommanderSeat = Seat & {
  harness: HarnessName;
  typed: boolean;
  clearKeys: string[];
  /** A hook-less commander's registration: runs `vx dispatch` from its shell tool; its commanders.json entry. */
  register?: () => Promise<Record<string, unknown>>;
  close(): Promise<void>;
};

/**
 * A world on `on` with `h` started as its commander, first-run screens answered, and the sentinel
 * running (started first, on the faster clock, so nothing auto-starts one at real timing). On the
 * real herdr a demo soldier dispatched with `--backend tmux` (the registration's) gets a tmux server
 * in the world's own TMUX_TMPDIR.
 */
export async function commanderSeat(h: HarnessName, on: On): Promise<CommanderSeat> {
  const spec = SPECS[h];
  const w = await world({
    ...spec.world,
    harness: h,
    commander: h,
    herdr: on === "herdr" ? "real" : "fake",
    prepare: (x) => {
      const tmuxDir = join(dirname(x.home), "tmux");
      mkdirSync(tmuxDir, { recursive: true });
      return { ...(spec.world.prepare?.(x) ?? {}), ...(on === "herdr" ? { TMUX_TMPDIR: tmuxDir } : {}) };
    },
  });
  let sentinel: Bun.Subprocess | undefined;
  const close = async () => {
    if (h === "codex") stopCodexDaemon(w.exe, w.env);
    await stopSentinels(w.home, sentinel ? [sentinel.pid] : []);
    await w.close();
  };
  try {
    // A person on tmux has told vx so (AWT-01: an await outside herdr runs only in a tmux pane of a
    // project configured for the tmux backend).
    if (on === "tmux") {
      const config = join(w.project, ".vexillum", "config.json");
      writeFileSync(config, `${JSON.stringify({ ...JSON.parse(readFileSync(config, "utf8")), backend: "tmux" }, null, 2)}\n`);
    }
    if (spec.commit) {
      git(w.project, "add", "-A");
      git(w.project, "commit", "-q", "-m", "vx init");
    }
    sentinel = await startSentinel(w);
    const pane = await startCommander(w, spec.command, spec.ready, spec.firstRun, spec.readyMs);
    const idle = settledBy(w, pane, h, spec.inputEmpty);
    const settle: Settle = spec.await
      ? async (what) => {
          await idle(what);
          await waitFor(() => (w.awaits().length === 1 ? true : undefined), 120_000, `${h}'s await, ${what}`);
        }
      : idle;
    return {
      w,
      pane,
      settle,
      harness: h,
      typed: spec.typed,
      clearKeys: spec.clearKeys,
      close,
      register: spec.register && (() => registerFromPane(w, pane, h, spec.register?.allow)),
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * One harness's commander suite on `on`: a `beforeAll` seats it, then, inside `describe(title)`, an
 * optional first turn, its registration from its shell tool with `registered`'s checks of the
 * commanders.json entry (a hook-less commander), and the wake checks; an `afterAll` closes it.
 */
export function commanderSuite(h: HarnessName, on: On, title: string, opts: { firstTurn?: boolean; registered?: (entry: Record<string, unknown>, seat: CommanderSeat) => void } = {}): void {
  let seat: CommanderSeat;
  beforeAll(async () => {
    seat = await commanderSeat(h, on);
  });
  afterAll(async () => {
    await seat?.close();
  });
  describe(title, () => {
    if (opts.firstTurn) {
      test("a first turn ends normally, and it settles after it", async () => {
        await firstTurn(seat, h);
      });
    }
    const registered = opts.registered;
    if (registered) {
      test(`a vx dispatch run by it records it with its ${on} pane`, async () => {
        if (!seat.register) throw new Error(`${h} is not registered from its shell tool`);
        const entry = await seat.register();
        console.log(`compat: ${h} commander ${on === "herdr" ? "in a herdr pane" : "in plain tmux"} registered as ${JSON.stringify({ ...entry, codex_home: undefined })}`);
        registered(entry, seat);
      });
    }
    wakeChecks(() => seat, h);
  });
}
