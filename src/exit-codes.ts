// Every exit code vx ends with, named once (ENV-08); two names may share a number when their callers differ.
export const EXIT = {
  ok: 0,
  error: 1,
  /** `vx sentinel await`: a wake was delivered, its reason on stderr; a Stop hook's 2 means "do not stop, here is why". */
  wakeDelivered: 2,
  /** `vx wait`: the task ended badly (blocked, failed, interrupted or unconfirmed). */
  taskEndedBadly: 2,
  usage: 64,
  /** `vx wait`: `--max-wait` reached (the value `timeout(1)` uses). */
  timeout: 124,
  /** `vx soldier-exec`: the harness was found but could not be started (the shell's 126). */
  cannotExecute: 126,
  /** `vx soldier-exec`: the harness is not on PATH (the shell's 127). */
  notFound: 127,
  /** Stopped by Ctrl-C (128 + SIGINT, as a shell reports it): `vx demo` after its teardown. */
  interrupted: 130,
} as const;
