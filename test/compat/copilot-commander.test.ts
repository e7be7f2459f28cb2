// The real GitHub Copilot CLI 1.0.102 as commander (HRN-02), in tmux, against the mock model, with
// the wake hook `vx init --commander copilot` writes (`.github/hooks/vx.json`: agentStop runs `vx
// sentinel drain`): a wake written while a turn runs reaches the model as the next prompt once the
// turn ends, and `git status` shows nothing Copilot left in the project. A wake while Copilot sits
// idle is the sentinel's typed delivery into its pane (CMDR-08): this suite's fake herdr does not
// type into a real pane, so that is proven in a plain tmux pane (copilot-commander-tmux.test.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { git } from "../helpers";
import { copilotCommanderWorld } from "./copilot-setup";
import { type World, say, screenShows, wakeDuringBusyTurn } from "./world";

let w: World;
const PANE = "cp";

beforeAll(async () => {
  w = await copilotCommanderWorld();
  w.tmux.start(PANE, [w.exe], w.project);
  // Keys typed while it is still loading are lost: the idle footer first.
  await screenShows(w, PANE, /· (\/ commands|@ files)\b/, 120_000);
});
afterAll(async () => {
  await w?.close();
});

describe("Copilot commander", () => {
  test("a first turn ends normally when no wake is pending (the hook's drain answers {})", async () => {
    w.models.respond((r) => (r.lastUser.includes("hello copilot") ? { text: "hello person" } : undefined));
    try {
      await say(w, PANE, "hello copilot");
      await screenShows(w, PANE, /hello person/, 60_000);
      await screenShows(w, PANE, /· (\/ commands|@ files)\b/, 60_000);
    } finally {
      w.models.respond(undefined);
    }
  });

  test("a busy Copilot receives the wake after its running turn (agentStop drain)", async () => {
    await wakeDuringBusyTurn(w, PANE, "copilot", "c9c9c9c9c9c9c9c9");
  });

  test("git status shows nothing Copilot or the hook left in the project", () => {
    expect(git(w.project, "status", "--porcelain", "--untracked-files=all")).toBe("");
  });
});
