// The one place vx reads the clock, and the built-in durations (SPEC section 17): nominal, multiplied by VX_TIME_SCALE so tests
// and demos run in milliseconds while texts name the nominal values.

const S = 1000;
const MIN = 60 * S;

/** Nominal durations in milliseconds. Never read these directly for waiting: use `scaled()`. */
export const DURATIONS = {
  sentinelPoll: 5 * S,
  awaitPoll: 5 * S,
  /** AWT-05: a day, 10 minutes inside the Stop hook's `timeout`; then a Claude Code owner gets one re-arm wake (AWT-12), one turn a day. */
  awaitGiveUp: 24 * 60 * MIN,
  settleGrace: 8 * S,
  notFoundWindow: 10 * S,
  unconfirmedWindow: 30 * S,
  stillRunningLimit: 30 * MIN,
  pauseTrust: 30 * MIN,
  stabilizeGap: 1 * S,
  deadClaim: 2 * MIN,
  retireWait: 15 * S,
  retireStep: 200,
  quickSettle: 15 * S,
  herdrPromptFallback: 30 * S,
  trustPoll: 200,
  paneBusyStep: 500,
  promptStalledStep: 500,
  /** TMX-02, HRD-06: a started harness's ready text (folder-trust dialog answered on the way). */
  harnessReady: 30 * S,
  /** CMD-RESUME-01: asking a harness which session is its soldier's (`opencode session list`). */
  sessionLookup: 30 * S,
  doctorProbe: 5 * S,
  /** CMDR-07: the Pi and OpenCode wake scripts send a held wake again this often while idle. */
  wakeRetry: 5 * S,
  /** CMDR-07: an await exiting 0 after this long gave up, so the wake script listens again; a quicker 0 means nothing to wait for. */
  wakeRelisten: 60 * S,
  waitPoll: 5 * S,
  waitMax: 7200 * S,
  /** WAK-14: a notifier still running after this is killed. */
  notifyLimit: 30 * S,
  /** STA-10: each camp_setup command's limit (config `camp_setup_timeout` overrides it). */
  campSetup: 10 * MIN,
  /** FOR-05: a forum server with no open page, request or new message for this long exits. */
  forumIdle: 8 * 60 * MIN,
  /**
   * FOR-08/09: with a page open, the forum server hears of changes from inotify (forum/watch.ts); this is how
   * often it looks at transcripts, artifacts and state instead while some directory cannot be watched.
   */
  forumWatch: 250,
  /** FOR-08/09: the settle after a watched change before the look, so a burst of writes is one look and one event. */
  forumSettle: 20,
  /** FOR-05/09: the look now and then besides the watch (an event inotify dropped), and with no page open (the idle rule). */
  forumRecheck: 30 * S,
  /** FOR-05: a connection silent this long is closed (unless its request was let in), so a stalled client holds a descriptor only this long. */
  forumConnectionIdle: 10 * S,
  /** FOR-05: how often a running forum server sweeps abandoned temporary files (and at start). */
  forumSweep: 60 * MIN,
  /** STA-05: a writer's temporary file this old was abandoned by a killed writer (a write takes ms). */
  tempAbandoned: 10 * MIN,
  /** FOR-06: a printed forum link's one-time code is good this long (as long as an idle server lives). */
  forumLink: 8 * 60 * MIN,
  /** FOR-06: `--open`'s link, in a file the browser reads at once. */
  forumOpenLink: 2 * MIN,
  /** FOR-09: a running task's usage on the board is read again at most this often (a finished one's only when its file changes). */
  boardUsageFresh: 10 * S,
  /** FOR-09: while a card's screen is open, the page asks for the pane's screen this often. */
  boardScreenPoll: 2 * S,
  /** MCH-08: how often a machine's relay looks for new tasks and wakes to send. */
  relayPoll: 500,
  /** MCH-08: the first wait before a dropped relay connects again; doubled per failure up to relayRetryMax. */
  relayRetry: 1 * S,
  relayRetryMax: 60 * S,
  /** MCH-08: how often the relay asks a machine whether it still has the tasks in flight there. */
  relayAsk: 10 * S,
  /** MCH-08: a machine's relay stays up this long after its last task settled, for a wake still on its way. */
  relayLinger: 10 * MIN,
} as const;

type DurationName = keyof typeof DURATIONS;

/** Guards against a hung child, in ms: never scaled, so a tiny VX_TIME_SCALE cannot kill a tool before it starts. */
export const GUARDS = {
  herdrCall: 60 * S,
  gitQuery: 60 * S,
  gitWrite: 10 * MIN,
  codexCall: 30 * S,
  /** How long a command waits to see an auto-started sentinel take its lock before saying so. */
  sentinelStart: 3 * S,
  forumStart: 10 * S,
  demoWake: 60 * S,
  /** `vx demo`'s teardown, `vx sentinel stop`: how long a verified sentinel gets after SIGTERM before SIGKILL. */
  demoSentinelStop: 5 * S,
  /** A child mark's sweep looks again after this: a process inside execve (`setsid cmd &`) shows no environment for a moment. */
  childSweepGap: 50,
  forumProbe: 2 * S,
  /** FOR-06: an artifact frame's view code is good for one request within this long of the page asking. */
  forumView: 60 * S,
  /** FOR-14: a board action's command (a land, a resume) still running after this is stopped and the page told so. */
  forumAction: 10 * MIN,
  /** The forum's server-sent events: a comment this often keeps proxies and the page's stream open. */
  forumHeartbeat: 15 * S,
  /** The board's diff stat per task is reused this long (one git call per task, not per refresh)... */
  boardDiffFresh: 10 * S,
  /** ...and dropped from the cache after this long unused. */
  boardDiffForget: 60 * S,
  tmuxCall: 60 * S,
  toolProbe: 10 * S,
  downloadStall: 30 * S,
  /**
   * How long a task file must be seen unchanged before the pass may leave it unread (sentinel/history.ts): coarser than any
   * file system's timestamp tick (FAT's mtime is 2 s), so a later rewrite cannot look unchanged. Never scaled: it is the disk's.
   */
  historySettled: 3 * S,
  /**
   * The longest the sentinel goes between full collections (real time; COUNTS.sentinelGcGrowth may bring one sooner): every
   * pass at the default poll, but not ten a second when a small VX_TIME_SCALE makes passes frequent. Never scaled.
   */
  sentinelGc: 5 * S,
  /** Shortest pause between await polls: a tiny VX_TIME_SCALE must not make a busy loop (the queue watch still answers at once, AWT-04). */
  awaitPollFloor: 50,
  /** WAK-14: how long a notifier's stderr is read after it exited (a child it left may hold it). */
  notifyStderr: 1 * S,
  /** STA-10: how long a camp_setup command's output is read after it exited (a child it left may hold it). */
  campSetupOutput: 1 * S,
  /** A soldier's state hook kills a `vx report` child still running after this (it answers in a second). */
  reportChild: 10 * S,
  /** MCH-02: ssh's ConnectTimeout (whole seconds), and the life of an idle control connection. */
  sshConnect: 15 * S,
  sshPersist: 60 * S,
  /** MCH-03, MCH-06: a probe of a machine; a command there (the copy of this binary, a dispatch). */
  sshProbe: 60 * S,
  sshCommand: 10 * MIN,
} as const;

/** Counts, not durations: never scaled. */
export const COUNTS = {
  stabilizeReads: 5,
  paneBusyRetries: 5,
  promptStalledRetries: 3,
  transcriptLines: 500,
  /** SEN-12: non-blank lines at the bottom of a pane searched for still-running evidence. */
  evidenceLines: 20,
  /** STA-10: lines of a failed camp_setup command's output kept for the task. */
  campSetupTailLines: 20,
  /** STA-10: bytes of one camp_setup command's output written to the setup log; the rest is counted, not kept. */
  campSetupLogBytes: 1024 * 1024,
  /** WAK-14: notifiers running at once; more pings wait, in order... */
  notifyConcurrent: 4,
  /** ...this many at most; more are dropped (logged once per project). */
  notifyWaiting: 32,
  outputLineChars: 4096,
  outputTailBytes: 64 * 1024,
  paneTailLines: 80,
  /** FOR-06: view codes the forum server holds at once (a page asks for one per load of its frame). */
  forumViews: 64,
  /** HOOK-01/AWT-05: the Stop hook's `timeout` in real seconds (never scaled): a day plus the await's 10-minute margin. */
  hookTimeoutSeconds: 24 * 3600 + 600,
  /** The sentinel's full collection comes as soon as its heap grew by this many bytes since the last (GUARDS.sentinelGc). */
  sentinelGcGrowth: 64 * 1024,
} as const;

type TimeScale = { value: number; raw?: string; valid: boolean };

/** ENV-07: a positive finite decimal, else scale 1 (reported by doctor). */
export function parseTimeScale(raw: string | undefined): TimeScale {
  if (raw === undefined || raw === "") return { value: 1, valid: true };
  const n = Number(raw.trim());
  if (!/^\s*[0-9]*\.?[0-9]+(e[-+]?[0-9]+)?\s*$/i.test(raw) || !Number.isFinite(n) || n <= 0) {
    return { value: 1, raw, valid: false };
  }
  return { value: n, raw, valid: true };
}

let scaleCache: { raw: string | undefined; value: number } | undefined;

export function timeScale(env: Record<string, string | undefined> = process.env): number {
  const raw = env.VX_TIME_SCALE;
  if (scaleCache && scaleCache.raw === raw) return scaleCache.value;
  const value = parseTimeScale(raw).value;
  scaleCache = { raw, value };
  return value;
}

/** A built-in duration in milliseconds, scaled by VX_TIME_SCALE. */
export function scaled(name: DurationName, env?: Record<string, string | undefined>): number {
  return DURATIONS[name] * timeScale(env);
}

/** The clock seam: `now` (wall, may step) for times compared across processes; `monotonic` for deadlines in one process (TIME-02). */
export interface Clock {
  now(): number;
  monotonic(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

export const realClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  sleep: abortableSleep,
};

/** Age of a stored wall time (TIME-02): a future one (the clock stepped back) counts as long ago, so no window waits; NaN stays NaN. */
export function ageOf(now: number, at: number): number {
  const age = now - at;
  return age < 0 ? Number.POSITIVE_INFINITY : age;
}

/** Whether `p` settles within `ms` (real time); the timer goes either way, so it never holds vx's exit. */
export function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((res) => {
    timer = setTimeout(() => res(false), ms);
  });
  return Promise.race([p.then(() => true), late]).finally(() => clearTimeout(timer));
}

/** A deadline `ms` from now on the monotonic clock: a step of the wall clock neither stretches nor cuts it. */
export function deadlineIn(clock: Pick<Clock, "monotonic">, ms: number): { left(): number; passed(): boolean } {
  const end = clock.monotonic() + ms;
  return { left: () => Math.max(0, end - clock.monotonic()), passed: () => clock.monotonic() >= end };
}

/** Seconds as a short decimal for people: 5, 0.05. */
export function seconds(ms: number): string {
  return String(Number((ms / 1000).toFixed(3)));
}

/** RFC 3339 UTC with millisecond precision, the format of every time on disk. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** Parses a time on disk; NaN when absent or malformed. */
export function parseTime(value: string | undefined): number {
  if (!value) return Number.NaN;
  return Date.parse(value);
}

/** Nominal duration text for messages ("30 minutes", "8s"), never scaled (SPEC conventions). */
export function nominalSeconds(name: DurationName): number {
  return DURATIONS[name] / 1000;
}
