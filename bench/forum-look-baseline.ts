#!/usr/bin/env bun
/**
 * The forum's change detection before the watch (the baseline of bench/forum-watch.ts): the same look
 * (src/forum/events.ts) every 250 ms, broadcast to open event streams as the server did. No access check:
 * it listens on 127.0.0.1 for the bench alone. Prints its port, then runs until killed.
 * Usage: bun bench/forum-look-baseline.ts <state root>
 */
import { createHub, createWatch } from "../src/forum/events";
import { DURATIONS, GUARDS } from "../src/time";

const root = process.argv[2];
if (!root) throw new Error("usage: bun bench/forum-look-baseline.ts <state root>");
const hub = createHub(GUARDS.forumHeartbeat);
const watch = createWatch(root);
const server = Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 0, fetch: () => hub.open() });
console.log(server.port);
for (;;) {
  // As the server's loop did with a page open: sleep a step, look, broadcast.
  await Bun.sleep(DURATIONS.forumWatch);
  try {
    const changed = watch.look();
    if (changed.board) hub.broadcast("board", {});
    for (const s of changed.sessions) hub.broadcast("session", { session: s });
    for (const s of changed.artifacts) hub.broadcast("artifact", { session: s });
  } catch {
    // mid-change: the next look sees it whole
  }
}
