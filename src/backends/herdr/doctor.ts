/** Doctor's herdr lines (DOC-04): its version against the supported range, and its server. */
import type { Check } from "../../check";
import type { Deps } from "../../deps";
import { errorMessage } from "../../errors";
import { GUARDS } from "../../time";
import { herdrVersionNote, parseHerdrVersion } from "./version";

export async function herdrChecks(deps: Deps, herdr: string): Promise<Check[]> {
  const out: Check[] = [];
  const ver = await deps.exec.run([herdr, "--version"], { env: deps.env, timeoutMs: GUARDS.toolProbe });
  const parsed = ver.code === 0 ? parseHerdrVersion(ver.stdout) : undefined;
  if (!parsed) {
    const why = ver.code === 0 ? `unexpected output ${JSON.stringify(ver.stdout.trim())}` : ver.stderr.trim() || `exit ${ver.code}`;
    out.push({ status: "warn", name: "herdr version", detail: `could not determine herdr version: ${why}` });
  } else if (!parsed.supported) {
    out.push({ status: "warn", name: "herdr version", detail: herdrVersionNote(parsed) });
  } else {
    out.push({ status: "ok", name: "herdr version", detail: herdrVersionNote(parsed) });
  }
  const st = await deps.exec.run([herdr, "status", "server", "--json"], { env: deps.env, timeoutMs: GUARDS.toolProbe });
  try {
    const doc = JSON.parse(st.stdout) as { running?: boolean; compatible?: boolean; protocol?: number };
    if (!doc.running) out.push({ status: "warn", name: "herdr server", detail: "not running" });
    else if (doc.compatible === false) {
      out.push({ status: "warn", name: "herdr server", detail: "not compatible with this herdr CLI; restart the herdr server" });
    } else out.push({ status: "ok", name: "herdr server", detail: `running (protocol ${doc.protocol})` });
  } catch (err) {
    const why = st.stderr.trim() || errorMessage(err);
    out.push({ status: "warn", name: "herdr server", detail: `could not read its status: ${why}` });
  }
  return out;
}
