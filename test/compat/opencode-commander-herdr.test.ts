// The real OpenCode 1.18.33 TUI as commander (CMDR-08a) in a real herdr 0.8.2 pane, against the mock
// chat-completions server, with the wake plugin `vx init --commander opencode` writes. The person
// starts `opencode` in the workspace's root pane (no trust screen; its first start installs its
// own packages). The plugin's await carries every wake: idle (once, as one message), after a
// running turn, and beside a person's unsent draft, which stays in the prompt box, unsent. Its
// screen is read by the sentinel's own rules for OpenCode.
import { commanderSuite } from "./commander-seats";

commanderSuite("opencode", "herdr", "OpenCode commander in a real herdr pane");
