/** Codex's home pointing at the mock's OpenAI Responses endpoint, with the project trusted. */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** `untrusted`: the project not trusted yet (a new checkout: Codex shows its folder-trust screen). */
export function seedCodex(home: string, project: string, modelsUrl: string, opts: { sandbox?: string[]; untrusted?: boolean } = {}): Record<string, string> {
  const codexHome = join(home, ".codex");
  mkdirSync(codexHome, { recursive: true });
  const toml = [
    'model_provider = "mock"',
    'model = "mock-1"',
    'approval_policy = "never"',
    // Full access unless a test asks for Codex's own default sandbox (with its extra lines).
    ...(opts.sandbox ?? ['sandbox_mode = "danger-full-access"']),
    "",
    "[model_providers.mock]",
    'name = "mock"',
    `base_url = "${modelsUrl}/v1"`,
    'wire_api = "responses"',
    'env_key = "MOCK_API_KEY"',
    "",
    ...(opts.untrusted ? [] : [`[projects."${project}"]`, 'trust_level = "trusted"', ""]),
    "[tui]",
    "screen_reader_detection_done = true",
    "",
  ].join("\n");
  writeFileSync(join(codexHome, "config.toml"), toml);
  return { CODEX_HOME: codexHome, MOCK_API_KEY: "dummy" };
}

/** Stops the app-server daemon a Codex TUI leaves behind (it outlives every TUI by design). */
export function stopCodexDaemon(exe: string, env: Record<string, string>): void {
  Bun.spawnSync([exe, "app-server", "daemon", "stop"], { env, stdout: "ignore", stderr: "ignore", timeout: 30_000 });
}

/** Codex's seeded config without its trusted project: its folder-trust dialog shows, as for a new user. */
export function untrusted(env: Record<string, string>): Record<string, string> {
  const path = join(env.CODEX_HOME!, "config.toml");
  writeFileSync(path, readFileSync(path, "utf8").replace(/^\[projects\."[^"]*"\]\ntrust_level = "trusted"\n/m, ""));
  return env;
}
