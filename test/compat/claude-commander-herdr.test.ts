// The real Claude Code 2.1.332 as commander (CMDR-06) in a real herdr 0.8.2 pane, against the mock
// Anthropic server. The person starts `claude` in the workspace's root pane and trusts the project
// at its folder-trust dialog (its cursor starts on "No, exit"). Its Stop hook's await carries every
// wake: idle (once, as one message), after a running turn (its first turn starts the await), and
// beside a person's unsent draft, which stays in the input box, unsent.
import { commanderSuite } from "./commander-seats";

commanderSuite("claude", "herdr", "Claude Code commander in a real herdr pane", { firstTurn: true });
