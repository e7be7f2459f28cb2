/**
 * Who gets in (FOR-06), as pure decisions over a request's URL and headers: the Host check
 * against DNS rebinding, the token exchanged once for an HttpOnly SameSite=Strict cookie, the
 * rules for a change (POST, JSON, same Origin), and the artifact key that lets the sandboxed
 * artifact frame load its files without the cookie (an opaque origin never gets it).
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export type Gate = { port: number; token: string };

/** The cookie's name carries the port: two state roots' servers never overwrite each other's. */
export const cookieName = (port: number) => `vx_forum_${port}`;

/** 421 unless the request names this server exactly (a rebound DNS name never does). */
export function hostAllowed(host: string | null, port: number): boolean {
  return host === `127.0.0.1:${port}` || host === `localhost:${port}`;
}

export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function cookieValue(header: string | null, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export type Verdict =
  | { kind: "in" }
  /** The token came in the URL: set the cookie and redirect to `location` (the URL without it). */
  | { kind: "exchange"; location: string; cookie: string }
  | { kind: "refuse"; status: 403 | 421; reason: string };

/** FOR-06 for any request but an artifact's. */
export function admit(url: URL, headers: Headers, gate: Gate): Verdict {
  if (!hostAllowed(headers.get("host"), gate.port)) {
    return { kind: "refuse", status: 421, reason: `this server answers only to 127.0.0.1:${gate.port} or localhost:${gate.port}` };
  }
  const given = url.searchParams.get("t");
  if (given !== null) {
    if (!sameSecret(given, gate.token)) return { kind: "refuse", status: 403, reason: "this link's token is not the forum's: ask the commander for a new link (vx forum board)" };
    const clean = new URL(url);
    clean.searchParams.delete("t");
    const cookie = `${cookieName(gate.port)}=${gate.token}; HttpOnly; SameSite=Strict; Path=/`;
    return { kind: "exchange", location: clean.pathname + clean.search, cookie };
  }
  const held = cookieValue(headers.get("cookie"), cookieName(gate.port));
  if (held !== undefined && sameSecret(held, gate.token)) return { kind: "in" };
  return { kind: "refuse", status: 403, reason: "no forum token: open the link vx printed (vx forum board)" };
}

/** Why a state-changing request is refused (FOR-06), or undefined when it may go on. */
export function changeProblem(method: string, headers: Headers): string | undefined {
  if (method !== "POST") return "a change must be a POST";
  const type = (headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json") return "a change must carry a JSON body (Content-Type: application/json)";
  const host = headers.get("host");
  const origin = headers.get("origin");
  if (origin === null || origin !== `http://${host}`) return "a change must come from the forum's own page (Origin does not match)";
  return undefined;
}

/** The key in an artifact URL: proves the link came from a forum page, per session. */
export function artifactKey(token: string, session: string): string {
  return createHmac("sha256", token).update(`artifact:${session}`).digest("hex").slice(0, 32);
}

/** Headers every forum page carries: its own scripts only, never framed by another site. */
export const PAGE_HEADERS = {
  "Content-Security-Policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
};

/**
 * An artifact's headers: a sandbox without allow-same-origin, so its scripts run in an opaque
 * origin that holds no cookie and cannot read the forum's answers; framed only by the forum.
 */
export const ARTIFACT_HEADERS = {
  "Content-Security-Policy": "sandbox allow-scripts; frame-ancestors 'self'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
};
