/** AWT-04: wait for the next poll, waking early on any change in the watched directories. */
import { type FSWatcher, watch } from "node:fs";
import type { Clock } from "../time";

export type Waker = { wait(ms: number, signal: AbortSignal): Promise<void>; close(): void };

export function createWaker(dirs: string[], clock: Clock): Waker {
  let pending = false;
  let current: AbortController | undefined;
  const onEvent = () => {
    pending = true;
    current?.abort();
  };
  const watchers: FSWatcher[] = [];
  for (const d of dirs) {
    try {
      watchers.push(watch(d, onEvent));
    } catch {
      // The poll is the safety net.
    }
  }
  return {
    async wait(ms, signal) {
      if (pending || signal.aborted) {
        pending = false;
        return;
      }
      current = new AbortController();
      const relay = () => current?.abort();
      signal.addEventListener("abort", relay, { once: true });
      await clock.sleep(ms, current.signal);
      signal.removeEventListener("abort", relay);
      current = undefined;
      pending = false;
    },
    close() {
      for (const w of watchers) w.close();
    },
  };
}
