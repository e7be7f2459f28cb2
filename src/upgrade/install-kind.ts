// How this vx was installed decides what `vx upgrade` may do (CMD-UPGRADE-01): Homebrew (in a `Cellar/<formula>/`), the
// installer (a release build named `vx` beside its receipt), or anything else, which is not vx's to replace.
import { realpathSync } from "node:fs";
import { basename, dirname, join, sep } from "node:path";
import { RECEIPT_NAME } from "../release-info";
import { readTextIfExists } from "../state/files";

export type Install = { kind: "homebrew"; executable: string; formula: string } | { kind: "installer"; executable: string; receipt: string } | { kind: "other"; why: string };

/** `releases`: the base it was installed from, so an upgrade goes back to the same mirror. */
export type Receipt = { installer: "install.sh"; version: string; os: string; arch: string; releases?: string };

/** The releases base a receipt recorded, when it is a usable http(s) URL. */
export function receiptReleases(path: string): string | undefined {
  const r = parseReceipt(readTextIfExists(path));
  return typeof r?.releases === "string" && /^https?:\/\/\S+$/.test(r.releases) ? r.releases : undefined;
}

function parseReceipt(text: string | undefined): Receipt | undefined {
  if (text === undefined) return undefined;
  try {
    const r = JSON.parse(text) as Partial<Receipt>;
    return r && r.installer === "install.sh" && typeof r.version === "string" ? (r as Receipt) : undefined;
  } catch {
    return undefined;
  }
}

/** `self`: the argv that re-runs this vx (one element when compiled). */
export function installKind(self: string[], buildKind: "release" | "source"): Install {
  if (self.length !== 1) return { kind: "other", why: `this vx runs from source (${self.join(" ")})` };
  const executable = self[0] as string;
  let resolved: string;
  try {
    resolved = realpathSync(executable);
  } catch {
    return { kind: "other", why: `${executable} cannot be found on disk` };
  }
  const cellar = resolved.split(sep).lastIndexOf("Cellar");
  if (cellar >= 0) {
    const formula = resolved.split(sep)[cellar + 1];
    if (formula) return { kind: "homebrew", executable, formula };
  }
  if (buildKind !== "release") return { kind: "other", why: `${resolved} was built from a checkout, not installed from a release` };
  if (basename(resolved) !== "vx") return { kind: "other", why: `${resolved} is a renamed copy of vx (the installer installs it as vx)` };
  const receipt = join(dirname(resolved), RECEIPT_NAME);
  if (!parseReceipt(readTextIfExists(receipt))) {
    return { kind: "other", why: `${resolved} was not installed by the installer script (no ${receipt})` };
  }
  return { kind: "installer", executable: resolved, receipt };
}
