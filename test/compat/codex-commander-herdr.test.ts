// The real Codex TUI 0.171.0 as commander (CMDR-09) in a real herdr 0.8.2 pane, against the mock
// Responses server, with the sentinel running. The person starts `codex` in the workspace's root
// pane and trusts the project at its folder-trust screen (which herdr reports `idle`). A vx
// dispatch run by Codex records its herdr pane and its thread; the sentinel's wakes reach it through
// `codex queue`: idle (once, as one message), after a running turn, and beside a person's unsent
// draft, which stays in the composer, unsent.
import { expect } from "bun:test";
import { commanderSuite } from "./commander-seats";

commanderSuite("codex", "herdr", "Codex commander in a real herdr pane", {
  registered: (entry, seat) => {
    expect(entry.herdr_pane_id).toBe(seat.pane);
    expect(entry.codex_thread_id).toMatch(/^[0-9a-f-]{36}$/);
  },
});
