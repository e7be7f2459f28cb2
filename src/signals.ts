/** The signals that ask a long-running vx process to stop, wired in one place. */

/** Ctrl-C, `kill`, a closed terminal. */
export const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** Calls `onStop` with each stop signal received until the returned function removes the handlers. */
export function onStopSignals(onStop: (sig: StopSignal) => void): () => void {
  const handlers = STOP_SIGNALS.map((sig) => {
    const h = () => onStop(sig);
    process.on(sig, h);
    return [sig, h] as const;
  });
  return () => {
    for (const [sig, h] of handlers) process.off(sig, h);
  };
}
