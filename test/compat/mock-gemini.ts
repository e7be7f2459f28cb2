/**
 * A mock Gemini API on 127.0.0.1 for the real Gemini CLI (which reaches it through the
 * `@google/genai` SDK with `GOOGLE_GEMINI_BASE_URL`): `POST /v1beta/models/<model>:streamGenerateContent?alt=sse`
 * answered as SSE (`data: <GenerateContentResponse>` per chunk), `:generateContent` as one JSON
 * body, `:countTokens` with a count; every request logged. Replies come from a responder, then a
 * queue, then a short text, like `mock-models.ts`; a tool call is one `functionCall` part.
 */
import { type LoggedRequest, type MockModels, type Reply, type Responder, requestBody } from "./mock-models";

const DEFAULT_TEXT = "ok";

type Part = { text?: string; thought?: boolean; functionCall?: unknown; functionResponse?: { name?: string; response?: unknown } };
type Content = { role?: string; parts?: Part[] };

function partText(p: Part): string {
  if (typeof p.text === "string" && !p.thought) return p.text;
  if (p.functionResponse) return JSON.stringify(p.functionResponse.response ?? {});
  return "";
}

/** The text of the last `user` content (function responses included), "" when there is none. */
export function lastUserOf(body: unknown): string {
  const contents = (body as { contents?: Content[] } | undefined)?.contents;
  if (!Array.isArray(contents)) return "";
  const last = contents.filter((c) => c?.role === "user").at(-1);
  return (last?.parts ?? []).map(partText).join("\n");
}

/** Whether a request carries a function's result (the turn after a tool call). */
export function isFunctionResult(r: LoggedRequest): boolean {
  const contents = (r.body as { contents?: Content[] } | undefined)?.contents;
  return Array.isArray(contents) && (contents.at(-1)?.parts ?? []).some((p) => p.functionResponse !== undefined);
}

/** `/v1beta/models/gemini-x:streamGenerateContent` -> ["gemini-x", "streamGenerateContent"]. */
function methodOf(path: string): [string, string] | undefined {
  const m = /\/models\/([^/:]+):([A-Za-z]+)$/.exec(path);
  return m ? [decodeURIComponent(m[1] as string), m[2] as string] : undefined;
}

type Schema = { type?: string; properties?: Record<string, Schema>; items?: Schema; enum?: unknown[] };

/**
 * A value fitting a JSON schema: the CLI's own side requests (the "Auto" model router's complexity
 * classifier, say) ask for JSON and retry with backoff on anything else.
 */
export function valueFor(schema: Schema | undefined): unknown {
  if (schema?.enum?.length) return schema.enum[0];
  switch ((schema?.type ?? "object").toLowerCase()) {
    case "object":
      return Object.fromEntries(Object.entries(schema?.properties ?? {}).map(([k, v]) => [k, valueFor(v)]));
    case "array":
      return [];
    case "integer":
    case "number":
      return 1;
    case "boolean":
      return false;
    default:
      return DEFAULT_TEXT;
  }
}

/** The JSON schema a request asks its answer to follow, when it asks for JSON. */
function jsonSchemaOf(body: unknown): Schema | undefined {
  const g = (body as { generationConfig?: { responseMimeType?: string; responseJsonSchema?: Schema; responseSchema?: Schema } } | undefined)?.generationConfig;
  if (g?.responseMimeType !== "application/json") return undefined;
  return g.responseJsonSchema ?? g.responseSchema ?? {};
}

function responseOf(reply: Reply, model: string): Record<string, unknown> {
  const parts: Record<string, unknown>[] = [];
  const text = reply.text ?? (reply.tool ? undefined : DEFAULT_TEXT);
  if (text !== undefined) parts.push({ text });
  if (reply.tool) parts.push({ functionCall: { name: reply.tool.name, args: reply.tool.input } });
  return {
    candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    modelVersion: model,
    responseId: `mock-${Date.now().toString(36)}`,
  };
}

export function startMockGemini(): MockModels {
  const requests: LoggedRequest[] = [];
  const queue: Reply[] = [];
  let responder: Responder | undefined;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const body = await requestBody(req);
      const method = methodOf(url.pathname);
      const isTurn = method !== undefined && (method[1] === "streamGenerateContent" || method[1] === "generateContent");
      const logged: LoggedRequest = { at: Date.now(), protocol: isTurn ? "gemini" : "other", method: req.method, path: url.pathname, body, lastUser: lastUserOf(body) };
      requests.push(logged);
      if (!method) return Response.json({ models: [] });
      const [model, verb] = method;
      if (verb === "countTokens") return Response.json({ totalTokens: 10 });
      if (!isTurn) return Response.json({});
      const schema = jsonSchemaOf(body);
      if (schema) {
        // A side request of the CLI's, never a turn of the conversation: no script is spent on it.
        logged.protocol = "other";
        return Response.json(responseOf({ text: JSON.stringify(valueFor(schema)) }, model));
      }
      const reply = responder?.(logged) ?? queue.shift() ?? { text: DEFAULT_TEXT };
      if (reply.delayMs) await Bun.sleep(reply.delayMs);
      if (reply.status) return Response.json({ error: { code: reply.status, message: `mock status ${reply.status}`, status: "UNAVAILABLE" } }, { status: reply.status });
      const response = responseOf(reply, model);
      if (verb === "generateContent") return Response.json(response);
      return new Response(`data: ${JSON.stringify(response)}\r\n\r\n`, { headers: { "content-type": "text/event-stream" } });
    },
  });
  const port = server.port as number;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    queue,
    respond(r) {
      responder = r;
    },
    turns: () => requests.filter((r) => r.protocol === "gemini"),
    stop: () => server.stop(true),
  };
}
