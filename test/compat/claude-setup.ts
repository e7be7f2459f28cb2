/** First-run settings that let the real Claude Code TUI start against the mock without questions. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PINNED } from "./harnesses";

export const CLAUDE_KEY = "sk-ant-compat-0000000000000000000000000000";

export function claudeEnv(modelsUrl: string): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: modelsUrl,
    ANTHROPIC_API_KEY: CLAUDE_KEY,
    DISABLE_TELEMETRY: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_ERROR_REPORTING: "1",
  };
}

/** `~/.claude.json` as a user who finished onboarding and trusted `projects`. */
export function seedClaude(home: string, projects: string[]): void {
  const trusted = Object.fromEntries(projects.map((p) => [p, { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true, allowedTools: [] }]));
  const config = {
    hasCompletedOnboarding: true,
    lastOnboardingVersion: PINNED.claude.version,
    theme: "dark",
    fullscreenUpsellSeenCount: 3,
    customApiKeyResponses: { approved: [CLAUDE_KEY.slice(-20)], rejected: [] },
    projects: trusted,
  };
  writeFileSync(join(home, ".claude.json"), `${JSON.stringify(config, null, 2)}\n`);
  mkdirSync(join(home, ".claude"), { recursive: true });
  writeFileSync(join(home, ".claude", "settings.json"), `${JSON.stringify({ skipDangerousModePermissionPrompt: true }, null, 2)}\n`);
}
