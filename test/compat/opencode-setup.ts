/** OpenCode's user config (in the world's own XDG dirs) pointing at the mock's chat-completions endpoint. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export function seedOpencode(home: string, modelsUrl: string): Record<string, string> {
  const xdg = {
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_STATE_HOME: join(home, ".local", "state"),
  };
  for (const d of Object.values(xdg)) mkdirSync(d, { recursive: true });
  const config = {
    $schema: "https://opencode.ai/config.json",
    provider: { mock: { npm: "@ai-sdk/openai-compatible", options: { baseURL: `${modelsUrl}/v1`, apiKey: "x" }, models: { "mock-1": {} } } },
    model: "mock/mock-1",
    small_model: "mock/mock-1",
    autoupdate: false,
    share: "disabled",
  };
  mkdirSync(join(xdg.XDG_CONFIG_HOME, "opencode"), { recursive: true });
  writeFileSync(join(xdg.XDG_CONFIG_HOME, "opencode", "opencode.json"), `${JSON.stringify(config, null, 2)}\n`);
  return xdg;
}
