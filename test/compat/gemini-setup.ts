/**
 * A private home that lets the real Gemini CLI start against the mock Gemini API with no network
 * and no first-run dialog: the API key and base URL in the environment, the authentication
 * method chosen in the user settings (else it asks "How would you like to authenticate"),
 * updates, usage statistics and tips off. The folder-trust dialog is the launch's (`--skip-trust`).
 */
import { mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { soldierHome } from "../../src/harnesses/gemini";

export const GEMINI_KEY = "mock-gemini-key";
/** Any model name passes; naming one skips the "Auto" router's classifier request. */
export const GEMINI_MODEL = "gemini-2.5-pro";

export function geminiEnv(modelsUrl: string): Record<string, string> {
  return { GOOGLE_GEMINI_BASE_URL: modelsUrl, GEMINI_API_KEY: GEMINI_KEY };
}

/** `~/.gemini/settings.json` of a user who picked API-key authentication. */
export function seedGemini(home: string): void {
  const settings = {
    security: { auth: { selectedType: "gemini-api-key" } },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    privacy: { usageStatisticsEnabled: false },
    ui: { hideTips: true },
  };
  mkdirSync(join(home, ".gemini"), { recursive: true });
  writeFileSync(join(home, ".gemini", "settings.json"), `${JSON.stringify(settings, null, 2)}\n`);
}

/**
 * Writes a soldier's private Gemini home (the draft harness module's `soldierHome`) from the
 * user's `~/.gemini`, and returns the environment that points the CLI at it.
 */
export function writeSoldierHome(home: string, opts: { vx: string; taskId: string; hooksDir: string }): Record<string, string> {
  const userGeminiDir = join(home, ".gemini");
  const userSettings = JSON.parse(readFileSync(join(userGeminiDir, "settings.json"), "utf8")) as Record<string, unknown>;
  const launch = soldierHome({ vx: opts.vx, hooksDir: opts.hooksDir, userGeminiDir, userSettings, userEntries: readdirSync(userGeminiDir) });
  for (const f of launch.files) {
    mkdirSync(dirname(f.path), { recursive: true });
    writeFileSync(f.path, f.content);
  }
  for (const l of launch.links) symlinkSync(l.target, l.path);
  return { ...launch.env, VX_TASK_ID: opts.taskId, VX_HARNESS: "gemini" };
}
