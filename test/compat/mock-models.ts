/**
 * Mock model servers on 127.0.0.1 for the real harnesses: Anthropic Messages (Claude Code),
 * OpenAI chat completions (Pi, OpenCode) and OpenAI Responses (Codex), all streamed as SSE, from
 * one server. Every request is logged; replies come from a script (text, a tool call, a delay)
 * and fall back to a short text. A test proves a wake reached a model by finding a logged request
 * whose last user message holds the wake's text.
 */

export type Protocol = "anthropic" | "chat" | "responses" | "gemini";

export type Reply = {
  text?: string;
  /** One tool call instead of (or before) text; `input` is the tool's JSON arguments. */
  tool?: { name: string; input: Record<string, unknown> };
  /** Milliseconds to wait before answering (a busy turn). */
  delayMs?: number;
  /** Answer with this HTTP status and an error body instead. */
  status?: number;
};

export type LoggedRequest = {
  at: number;
  protocol: Protocol | "other";
  method: string;
  path: string;
  body: unknown;
  /** The text of the last user message (tool results included), "" when there is none. */
  lastUser: string;
};

/** Decides a reply for a request; undefined falls through to the queue, then the default. */
export type Responder = (req: LoggedRequest) => Reply | undefined;

export type MockModels = {
  url: string;
  port: number;
  requests: LoggedRequest[];
  /** Replies used in order by the next model requests (after any responder declines). */
  queue: Reply[];
  respond(r: Responder | undefined): void;
  /** Model requests (not count_tokens, model lists or other paths). */
  turns(): LoggedRequest[];
  stop(): void;
};

const DEFAULT_TEXT = "ok";

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => {
      if (typeof part === "string") return part;
      if (!part || typeof part !== "object") return "";
      const p = part as Record<string, unknown>;
      if (typeof p.text === "string") return p.text;
      if (p.content !== undefined) return textOf(p.content);
      if (typeof p.output === "string") return p.output;
      return "";
    })
    .join("\n");
}

function lastUserText(protocol: Protocol | "other", body: unknown): string {
  if (!body || typeof body !== "object") return "";
  const b = body as Record<string, unknown>;
  const list = protocol === "responses" ? b.input : b.messages;
  if (typeof list === "string") return list;
  if (!Array.isArray(list)) return "";
  const users = list.filter((m) => m && typeof m === "object" && (m as Record<string, unknown>).role === "user");
  const last = users.at(-1) as Record<string, unknown> | undefined;
  return last ? textOf(last.content) : "";
}

function protocolOf(path: string): Protocol | "other" {
  if (path.endsWith("/messages")) return "anthropic";
  if (path.endsWith("/chat/completions")) return "chat";
  if (path.endsWith("/responses")) return "responses";
  return "other";
}

const sse = (events: [string | undefined, unknown][]) =>
  events.map(([event, data]) => `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`).join("");

let seq = 0;
const nextId = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(seq++).toString(36)}`;

function anthropic(reply: Reply, model: string, stream: boolean): Response {
  const id = nextId("msg");
  const blocks: Record<string, unknown>[] = [];
  if (reply.text !== undefined || !reply.tool) blocks.push({ type: "text", text: reply.text ?? DEFAULT_TEXT });
  if (reply.tool) blocks.push({ type: "tool_use", id: nextId("toolu"), name: reply.tool.name, input: reply.tool.input });
  const stop = reply.tool ? "tool_use" : "end_turn";
  const usage = { input_tokens: 10, output_tokens: 5 };
  if (!stream) {
    return Response.json({ id, type: "message", role: "assistant", model, content: blocks, stop_reason: stop, stop_sequence: null, usage });
  }
  const events: [string, unknown][] = [
    ["message_start", { type: "message_start", message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage } }],
    ["ping", { type: "ping" }],
  ];
  blocks.forEach((b, index) => {
    if (b.type === "text") {
      events.push(["content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }]);
      events.push(["content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: b.text } }]);
    } else {
      events.push(["content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } }]);
      events.push(["content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) } }]);
    }
    events.push(["content_block_stop", { type: "content_block_stop", index }]);
  });
  events.push(["message_delta", { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } }]);
  events.push(["message_stop", { type: "message_stop" }]);
  return new Response(sse(events), { headers: { "content-type": "text/event-stream" } });
}

function chat(reply: Reply, model: string, stream: boolean): Response {
  const id = nextId("chatcmpl");
  const created = Math.floor(Date.now() / 1000);
  const call = reply.tool && { index: 0, id: nextId("call"), type: "function", function: { name: reply.tool.name, arguments: JSON.stringify(reply.tool.input) } };
  const text = reply.text ?? (reply.tool ? undefined : DEFAULT_TEXT);
  const finish = call ? "tool_calls" : "stop";
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  if (!stream) {
    const message = { role: "assistant", content: text ?? null, ...(call ? { tool_calls: [{ id: call.id, type: "function", function: call.function }] } : {}) };
    return Response.json({ id, object: "chat.completion", created, model, choices: [{ index: 0, message, finish_reason: finish }], usage });
  }
  const chunk = (delta: unknown, finish_reason: string | null, extra: Record<string, unknown> = {}) => ({
    id,
    object: "chat.completion.chunk",
    created,
    model,
    choices: [{ index: 0, delta, finish_reason }],
    ...extra,
  });
  const events: [undefined, unknown][] = [[undefined, chunk({ role: "assistant", content: "" }, null)]];
  if (text !== undefined) events.push([undefined, chunk({ content: text }, null)]);
  if (call) events.push([undefined, chunk({ tool_calls: [call] }, null)]);
  events.push([undefined, chunk({}, finish, { usage })]);
  events.push([undefined, "[DONE]"]);
  return new Response(sse(events), { headers: { "content-type": "text/event-stream" } });
}

function responses(reply: Reply, model: string): Response {
  const id = nextId("resp");
  const items: Record<string, unknown>[] = [];
  const text = reply.text ?? (reply.tool ? undefined : DEFAULT_TEXT);
  if (text !== undefined) {
    items.push({ type: "message", id: nextId("msg"), role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
  }
  if (reply.tool) {
    items.push({ type: "function_call", id: nextId("fc"), call_id: nextId("call"), name: reply.tool.name, arguments: JSON.stringify(reply.tool.input), status: "completed" });
  }
  const response = { id, object: "response", created_at: Math.floor(Date.now() / 1000), model, status: "in_progress", output: [] as unknown[] };
  const events: [string, unknown][] = [["response.created", { type: "response.created", response }]];
  items.forEach((item, output_index) => {
    const opening = item.type === "message" ? { ...item, status: "in_progress", content: [] } : item;
    events.push(["response.output_item.added", { type: "response.output_item.added", output_index, item: opening }]);
    if (item.type === "message") {
      events.push(["response.output_text.delta", { type: "response.output_text.delta", item_id: item.id, output_index, content_index: 0, delta: text }]);
    }
    events.push(["response.output_item.done", { type: "response.output_item.done", output_index, item }]);
  });
  const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
  events.push(["response.completed", { type: "response.completed", response: { ...response, status: "completed", output: items, usage } }]);
  return new Response(sse(events), { headers: { "content-type": "text/event-stream" } });
}

function answer(protocol: Protocol, reply: Reply, body: Record<string, unknown>): Response {
  const model = typeof body.model === "string" ? body.model : "mock-1";
  if (reply.status) return Response.json({ error: { type: "mock_error", message: `mock status ${reply.status}` } }, { status: reply.status });
  if (protocol === "anthropic") return anthropic(reply, model, body.stream === true);
  if (protocol === "chat") return chat(reply, model, body.stream === true);
  return responses(reply, model);
}

/** A POST's body as JSON, or as text when it is not JSON (logged either way); undefined for a GET. */
export async function requestBody(req: Request): Promise<unknown> {
  const text = req.method === "POST" ? await req.text() : "";
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function startMockModels(): MockModels {
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
      const protocol = protocolOf(url.pathname);
      const logged: LoggedRequest = { at: Date.now(), protocol, method: req.method, path: url.pathname, body, lastUser: lastUserText(protocol, body) };
      requests.push(logged);
      if (url.pathname.endsWith("/count_tokens")) return Response.json({ input_tokens: 10 });
      if (url.pathname.endsWith("/models")) return Response.json({ object: "list", data: [{ id: "mock-1", object: "model", created: 0, owned_by: "mock" }] });
      if (protocol === "other" || req.method !== "POST") return Response.json({});
      const reply = responder?.(logged) ?? queue.shift() ?? { text: DEFAULT_TEXT };
      if (reply.delayMs) await Bun.sleep(reply.delayMs);
      return answer(protocol, reply, (body ?? {}) as Record<string, unknown>);
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
    turns: () => requests.filter((r) => r.protocol !== "other" && !r.path.endsWith("/count_tokens")),
    stop: () => server.stop(true),
  };
}
