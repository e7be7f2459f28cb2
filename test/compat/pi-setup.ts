/** Pi's user config pointing at the mock's OpenAI chat-completions endpoint. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export function seedPi(home: string, modelsUrl: string): void {
  const dir = join(home, ".pi", "agent");
  mkdirSync(dir, { recursive: true });
  const model = { id: "mock-1", name: "Mock", reasoning: false, input: ["text"], contextWindow: 128000, maxTokens: 4096, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } };
  const models = { providers: { mock: { baseUrl: `${modelsUrl}/v1`, api: "openai-completions", apiKey: "sk-mock", models: [model] } } };
  writeFileSync(join(dir, "models.json"), `${JSON.stringify(models, null, 2)}\n`);
  const settings = { defaultProvider: "mock", defaultModel: "mock-1", retry: { enabled: true, maxRetries: 2, baseDelayMs: 500 } };
  writeFileSync(join(dir, "settings.json"), `${JSON.stringify(settings, null, 2)}\n`);
}

export const PI_ENV = { PI_OFFLINE: "1" };
