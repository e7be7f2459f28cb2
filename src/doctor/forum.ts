// The `forum` line (DOC-15): server, port, and an older binary (it retires by itself). Doctor never starts or stops the server.
import { runningServer } from "../forum/client";
import { changeReason } from "../sentinel/build";
import type { Check } from "../check";

export function forumCheck(root: string): Check {
  let info: ReturnType<typeof runningServer>;
  try {
    info = runningServer(root);
  } catch (err) {
    return { status: "warn", name: "forum", detail: `cannot tell whether the forum server runs: ${(err as Error).message}` };
  }
  if (!info) return { status: "ok", name: "forum", detail: "server not running (vx forum board starts it)" };
  const stale = changeReason(info.binary);
  if (stale)
    return {
      status: "warn",
      name: "forum",
      detail: `server pid ${info.pid} on 127.0.0.1:${info.port} runs an old binary (${stale}); it retires within seconds and the next vx forum command starts a new one`,
    };
  return { status: "ok", name: "forum", detail: `server running (pid ${info.pid}) on 127.0.0.1:${info.port} - vx forum board prints its URL` };
}
