/**
 * What GitHub Copilot CLI needs from a model server in its "bring your own key" mode with the
 * default provider type "openai" and wire API "completions": POST `<base>/chat/completions`,
 * streamed (stream: true, stream_options), with its tools offered as OpenAI functions. Nothing
 * else is called with COPILOT_OFFLINE=true (no token exchange, user, model-list or telemetry
 * endpoint), so the shared mock's chat-completions answers serve it; this module adds the
 * Copilot-specific parts: its file tool's call, its tool-result turns, and the requests that went
 * anywhere else (which must be none).
 */
import { type LoggedRequest, type MockModels, type Reply, startMockModels } from "./mock-models";

export type MockCopilot = MockModels & {
  /** Requests other than Copilot's chat completions (a GitHub or catalog call would land here). */
  strays(): LoggedRequest[];
};

export const CHAT_PATH = "/v1/chat/completions";

export function startMockCopilot(): MockCopilot {
  const models = startMockModels();
  return Object.assign(models, { strays: () => models.requests.filter((r) => r.method !== "POST" || r.path !== CHAT_PATH) });
}

type ChatBody = { messages?: { role?: string }[]; tools?: { function?: { name?: string } }[]; stream?: boolean };

/** Copilot's `create` tool (an absolute path and the whole text; the file must not exist yet). */
export function createFile(path: string, text: string): Reply {
  return { tool: { name: "create", input: { path, file_text: text } } };
}

/** The request that carries a tool's result back to the model (the turn's second call). */
export function isToolTurn(r: LoggedRequest): boolean {
  return (r.body as ChatBody | undefined)?.messages?.at(-1)?.role === "tool";
}

/** The tool names a request offered the model. */
export function toolsOffered(r: LoggedRequest): string[] {
  return ((r.body as ChatBody | undefined)?.tools ?? []).map((t) => t.function?.name ?? "");
}
