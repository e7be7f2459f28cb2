// The forum's page script: the shared helpers and the review page (board.js, loaded after it, is the board).
// Plain DOM, no framework: every text from the server is put in with textContent, never as HTML (FOR-10). A message is shown as sent only
// when the server answered 201, which it does once the message is on disk (FOR-07).
// biome-ignore lint/suspicious/noRedundantUseStrict: a classic <script defer>, not a module, so the directive does apply
"use strict";

const $ = (id) => document.getElementById(id);

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function notice(text, error) {
  const n = $("notice");
  n.hidden = !text;
  n.textContent = text || "";
  n.classList.toggle("error", Boolean(error));
}

async function errorOf(res) {
  try {
    const body = await res.json();
    if (body?.error) return body.error;
  } catch (_) {
    // not JSON
  }
  return `the forum answered ${res.status}`;
}

// The page's key (FOR-06) lives in this tab's sessionStorage: only this origin (port included)
// can read it, and it goes out only as a header, never as a cookie a browser would also send to
// every other port of 127.0.0.1. A link brings a one-time code in its fragment; it is taken off
// the address bar and the history entry before anything else, then traded once for the key.
const KEY = "vx-forum-key";
const NO_KEY = "this tab holds no forum key: open a link vx printed (vx forum board prints a new one)";

function takeLinkCode() {
  const m = /^#c=([0-9a-f]{64})$/.exec(location.hash);
  if (location.hash) history.replaceState(null, "", location.pathname + location.search);
  return m ? m[1] : null;
}

const loggedIn = (async () => {
  const code = takeLinkCode();
  if (!code) return;
  let res;
  try {
    res = await fetch("/api/login", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ code }) });
  } catch (_) {
    throw new Error("the forum did not answer (is it running? vx forum board starts it)");
  }
  if (res.ok) sessionStorage.setItem(KEY, (await res.json()).key);
  else if (!sessionStorage.getItem(KEY)) throw new Error(await errorOf(res));
})();
loggedIn.catch(() => {}); // each use below says what went wrong

/** The key header, once the login (if any) is done; throws with what to do when there is no key. */
async function auth() {
  await loggedIn;
  const key = sessionStorage.getItem(KEY);
  if (!key) throw new Error(NO_KEY);
  return { Authorization: `Bearer ${key}` };
}

async function getJson(url) {
  const res = await fetch(url, { cache: "no-store", credentials: "omit", headers: await auth() });
  if (!res.ok) throw new Error(await errorOf(res));
  return res.json();
}

/** A change: POST with a JSON body and the key; the browser adds the Origin the server checks (FOR-06). */
async function postJson(url, body, status = 201) {
  let res;
  try {
    res = await fetch(url, { method: "POST", credentials: "omit", headers: { ...(await auth()), "Content-Type": "application/json" }, body: JSON.stringify(body) });
  } catch (e) {
    if (e.message === NO_KEY) return { ok: false, error: NO_KEY };
    return { ok: false, error: "the forum did not answer (is it running? vx forum board starts it); your text is kept - send it again" };
  }
  if (res.status === status) return { ok: true, body: await res.json() };
  return { ok: false, error: await errorOf(res) };
}

/** One server-sent event block (`event:` and `data:` lines) to its handler. */
function dispatch(block, handlers) {
  let event = "message";
  let data = "";
  for (const line of block.split("\n")) {
    if (line.startsWith("event:")) event = line.slice(6).trim();
    else if (line.startsWith("data:")) data += line.slice(5).trim();
  }
  if (data && event !== "open" && Object.hasOwn(handlers, event)) handlers[event](JSON.parse(data));
}

/**
 * The live stream, read with fetch (EventSource cannot send the key header); `open` runs on every
 * (re)connection, so a restarted server refreshes the page.
 */
async function follow(handlers) {
  const live = $("live");
  for (;;) {
    let res;
    try {
      res = await fetch("/api/events", { cache: "no-store", credentials: "omit", headers: await auth() });
    } catch (e) {
      if (e.message === NO_KEY || !sessionStorage.getItem(KEY)) {
        // No key, or a link that did not work: nothing to retry until the general opens a new link.
        notice(e.message, true);
        live.textContent = "no key";
        return;
      }
    }
    if (res && res.status === 403) {
      notice(await errorOf(res), true);
      live.textContent = "refused";
      return;
    }
    if (res?.ok) {
      live.textContent = "live";
      live.classList.remove("off");
      handlers.open();
      try {
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buf = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf = (buf + value).replace(/\r\n?/g, "\n");
          for (let i = buf.indexOf("\n\n"); i >= 0; i = buf.indexOf("\n\n")) {
            dispatch(buf.slice(0, i), handlers);
            buf = buf.slice(i + 2);
          }
          if (buf.length > 1 << 20) break; // not an event stream: start again
        }
      } catch (_) {
        // the server went away: reconnect below
      }
    }
    live.textContent = "reconnecting…";
    live.classList.add("off");
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Sends on submit and on Ctrl/Cmd+Enter; keeps the text unless the server took it. */
function sender(form, textarea, button, status, send) {
  const go = async (ev) => {
    if (ev) ev.preventDefault();
    const text = textarea.value;
    if (text.trim() === "") {
      status.textContent = "write something first";
      status.classList.add("error");
      return;
    }
    button.disabled = true;
    status.textContent = "sending…";
    status.classList.remove("error");
    const r = await send(text);
    button.disabled = false;
    if (r.ok) {
      if (textarea.value === text) textarea.value = "";
      // A page may say more than "sent" (the board: whether anyone listens, FOR-09).
      status.textContent = r.sent || "sent";
    } else {
      status.textContent = r.error;
      status.classList.add("error");
    }
  };
  form.addEventListener("submit", go);
  textarea.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) go(e);
  });
}

// --- the review page ---------------------------------------------------------------------------

function reviewPage() {
  const session = decodeURIComponent(location.pathname.split("/")[2] || "");
  const frame = $("artifact");
  let shown = false;
  let ended = false;

  /** A new one-time view of the artifact for the frame (FOR-06): its code is spent by the frame's load. */
  async function showArtifact() {
    const r = await postJson(`/api/sessions/${encodeURIComponent(session)}/view`, {});
    if (r.ok) frame.src = r.body.url;
    else notice(r.error, true);
  }

  async function refresh() {
    let doc;
    try {
      doc = await getJson(`/api/sessions/${encodeURIComponent(session)}`);
    } catch (e) {
      notice(e.message, true);
      return;
    }
    notice("");
    $("file").textContent = doc.file;
    document.title = `vx forum - ${doc.file}`;
    if (!shown) {
      shown = true;
      await showArtifact();
    }
    const list = $("transcript");
    list.replaceChildren(
      ...doc.transcript.map((m) => {
        const li = el("li", m.from);
        li.dataset.uid = m.uid;
        li.append(el("span", "who", `${m.from === "general" ? "you" : "commander"} · ${new Date(m.at).toLocaleTimeString()}`), el("span", "text", m.text));
        return li;
      }),
    );
    list.scrollTop = list.scrollHeight;
    ended = doc.ended;
    $("ended").hidden = !ended;
    $("text").disabled = ended;
    $("send").disabled = ended;
  }

  sender($("feedback"), $("text"), $("send"), $("status"), async (text) => {
    if (ended) return { ok: false, error: "this review has ended" };
    const r = await postJson(`/api/sessions/${encodeURIComponent(session)}/messages`, { text });
    if (r.ok) await refresh();
    return r;
  });
  follow({
    open: refresh,
    session: (d) => d.session === session && refresh(),
    artifact: (d) => d.session === session && shown && showArtifact(),
  });
}

// The board page is board.js, loaded after this script (FOR-09).
if (document.body.dataset.page === "review") reviewPage();
