// The real Pi 0.73.1 as commander (CMDR-07) in a real herdr 0.8.2 pane, against the mock
// chat-completions server, with the wake extension `vx init --commander pi` writes. The person
// starts `pi` in the workspace's root pane (no trust or first-run screen). The extension's await
// carries every wake: idle (once, as one message), after a running turn, and beside a person's
// unsent draft, which stays in the editor, unsent.
import { commanderSuite } from "./commander-seats";

commanderSuite("pi", "herdr", "Pi commander in a real herdr pane");
