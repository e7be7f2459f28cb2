/**
 * GitHub Copilot CLI's private home pointing at the mock's chat-completions endpoint through its
 * "bring your own key" provider settings: no GitHub login, no network (COPILOT_OFFLINE), no
 * update check, the projects trusted and the banner and tips off, so the TUI starts straight at
 * its input box.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { git } from "../helpers";
import { PINNED, cacheDir } from "./harnesses";
import { type World, world } from "./world";

export const COPILOT_MODEL = "mock-1";

export function copilotEnv(home: string, modelsUrl: string): Record<string, string> {
  return {
    COPILOT_HOME: join(home, ".copilot"),
    COPILOT_PROVIDER_BASE_URL: `${modelsUrl}/v1`,
    COPILOT_PROVIDER_TYPE: "openai",
    COPILOT_PROVIDER_API_KEY: "sk-mock",
    COPILOT_OFFLINE: "true",
    COPILOT_AUTO_UPDATE: "false",
    // The npm binary unpacks its JavaScript (about 230 MB) on first run, into the home's cache by
    // default: kept beside the install instead, so each temp home does not pay for it again.
    COPILOT_PKG_CACHE_HOME: join(cacheDir(), `copilot-${PINNED.copilot.version}`),
  };
}

/** config.json (the CLI's own state: trusted folders, first launch) and settings.json (the user's). */
export function seedCopilot(home: string, trusted: string[]): void {
  const dir = join(home, ".copilot");
  mkdirSync(dir, { recursive: true });
  const config = { firstLaunchAt: "2026-01-01T00:00:00.000Z", appTipShown: true, trustedFolders: trusted };
  writeFileSync(join(dir, "config.json"), `${JSON.stringify(config, null, 2)}\n`);
  const settings = { banner: "never", showTipsOnStartup: false, autoUpdate: false, updateTerminalTitle: false };
  writeFileSync(join(dir, "settings.json"), `${JSON.stringify(settings, null, 2)}\n`);
}

/**
 * A world with Copilot CLI as soldier and commander, its project committed after `vx init`: the
 * project is trusted beforehand, as a user's own checkout would be, so its repository hooks load.
 */
export async function copilotCommanderWorld(): Promise<World> {
  const w = await world({
    harness: "copilot",
    commander: "copilot",
    env: { COPILOT_MODEL },
    prepare: (x) => (seedCopilot(x.home, [x.project]), copilotEnv(x.home, x.models.url)),
  });
  git(w.project, "add", "-A");
  git(w.project, "commit", "-q", "-m", "vx init");
  return w;
}
