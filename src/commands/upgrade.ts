/**
 * `vx upgrade` (CMD-UPGRADE-01/02): the binary step by how vx was installed (Homebrew runs
 * `brew upgrade`; an installer-script install replaces itself from the release; anything else is
 * refused with the reinstall line), never to an older version, then the scaffold step: the new
 * binary re-executed as `vx upgrade --scaffold-only` in an initialized project (SCF-08).
 */
import { existsSync } from "node:fs";
import { defineVxCommand } from "../command";
import type { Deps } from "../deps";
import { EXIT, UsageError, VxError } from "../errors";
import { configPath } from "../project";
import { VERSION_ASSET, assetUrl, hostPlatform, reinstallHint, releasesBase } from "../release-info";
import type { BlockLang } from "../scaffold/block";
import { type RefreshFlags, refreshScaffold } from "../scaffold/refresh";
import { gitToplevel, refuseInsideCamp, stateRoot } from "../state/paths";
import { downloadText } from "../upgrade/download";
import { installKind, receiptReleases } from "../upgrade/install-kind";
import { replaceFromRelease } from "../upgrade/replace";
import { BUILD_KIND, VERSION } from "../version";

const VERSION_RE = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;

async function latestVersion(base: string): Promise<string> {
  const url = assetUrl(base, "latest", VERSION_ASSET);
  const text = (await downloadText(url, VERSION_ASSET)).trim().replace(/^v/, "");
  if (!VERSION_RE.test(text)) throw new VxError(`${url} does not hold a version (it starts "${text.slice(0, 40)}") - nothing was changed`);
  return text;
}

/**
 * True in an initialized project, false elsewhere; inside a camp it refuses before anything
 * changes (STA-08), since the scaffold step would refuse there after the binary had changed.
 */
async function inInitializedProject(deps: Deps): Promise<boolean> {
  const root = stateRoot(deps.env);
  refuseInsideCamp(deps.cwd, root);
  const top = await gitToplevel(deps.cwd, deps.exec, deps.env);
  if (!top) return false;
  refuseInsideCamp(top, root);
  return existsSync(configPath(top));
}

function scaffoldArgv(exe: string, f: RefreshFlags): string[] {
  const argv = [exe, "upgrade", "--scaffold-only"];
  if (f.yes) argv.push("--yes");
  if (f.force) argv.push("--force");
  if (f.lang) argv.push("--lang", f.lang);
  if (f.skills !== undefined) argv.push(f.skills ? "--skills" : "--no-skills");
  return argv;
}

/** The scaffold step run by the binary now on disk, sharing this terminal. */
async function reexecScaffold(deps: Deps, exe: string, f: RefreshFlags): Promise<number> {
  const r = await deps.exec.run(scaffoldArgv(exe, f), { cwd: deps.cwd, env: deps.env, inherit: true });
  if (r.stderr) throw new VxError(`cannot run ${exe} for the scaffold step (${r.stderr}); run 'vx upgrade --scaffold-only' yourself`);
  return r.code;
}

export const upgradeCommand = defineVxCommand({
  name: "upgrade",
  summary: "Update vx to the latest release, then refresh the project's vexillum scaffold",
  usage: ["upgrade [--check] [--scaffold-only] [--force] [--yes|-y] [--lang en|es] [--skills|--no-skills]"],
  args: {
    check: { type: "boolean", description: "Say whether a newer release exists; change nothing" },
    "scaffold-only": { type: "boolean", description: "Leave the binary alone; only refresh this project's scaffold" },
    force: { type: "boolean", description: "Overwrite files edited by hand (each backed up under .vexillum/backups/ first)" },
    yes: { type: "boolean", alias: "y", description: "Accept every question without asking" },
    lang: { type: "string", valueHint: "en|es", description: "Language of the commander block (default: the block's own)" },
    skills: { type: "boolean", description: "Install or refresh the vexillum skill (--no-skills to leave it alone)", negativeDescription: "Leave the vexillum skill alone" },
  },
  async run(args, deps) {
    if (args._.length > 0) throw new UsageError(`unexpected argument "${args._[0]}"`, "upgrade");
    if (args.lang !== undefined && args.lang !== "en" && args.lang !== "es") {
      throw new UsageError(`unknown language "${String(args.lang)}", expected one of en, es`, "upgrade");
    }
    if (args.check && args["scaffold-only"]) throw new UsageError("--check and --scaffold-only cannot be combined", "upgrade");
    const flags: RefreshFlags = { yes: Boolean(args.yes), force: Boolean(args.force), lang: args.lang as BlockLang | undefined, skills: args.skills as boolean | undefined };
    if (args["scaffold-only"]) return refreshScaffold(deps, flags);

    const install = installKind(deps.self, BUILD_KIND);
    const base = releasesBase(deps.env, install.kind === "installer" ? receiptReleases(install.receipt) : undefined);
    if (args.check) {
      const latest = await latestVersion(base);
      deps.stdout.write(Bun.semver.order(latest, VERSION) > 0 ? `vx ${VERSION} -> ${latest} available\n` : `vx ${VERSION} is the latest\n`);
      return EXIT.ok;
    }
    const project = await inInitializedProject(deps);
    if (install.kind === "other") {
      throw new VxError(`${install.why}, so vx upgrade cannot replace it - ${reinstallHint(base)}; 'vx upgrade --scaffold-only' still refreshes a project's scaffold`);
    }

    if (install.kind === "homebrew") {
      deps.stderr.write(`vx: installed by Homebrew, running: brew upgrade ${install.formula}\n`);
      const r = await deps.exec.run(["brew", "upgrade", install.formula], { env: deps.env, inherit: true });
      if (r.code !== 0) throw new VxError(`brew upgrade ${install.formula} failed (${r.stderr || `exit ${r.code}`}) - see its output above, then run 'vx upgrade' again`);
      return project ? reexecScaffold(deps, install.executable, flags) : EXIT.ok;
    }

    const latest = await latestVersion(base);
    if (Bun.semver.order(latest, VERSION) <= 0) {
      deps.stderr.write(`vx ${VERSION} is the latest\n`);
      return project ? refreshScaffold(deps, flags) : EXIT.ok;
    }
    const platform = hostPlatform();
    if (!platform) throw new VxError(`vx is not released for ${process.platform}/${process.arch}`);
    deps.stderr.write(`vx: upgrading vx ${VERSION} -> ${latest}\n`);
    await replaceFromRelease({
      base,
      version: latest,
      platform,
      target: install.executable,
      receipt: install.receipt,
      exec: deps.exec,
      env: deps.env,
      // Progress is for a person watching; a log or a pipe gets only the result lines.
      progress: (require("node:tty") as typeof import("node:tty")).isatty(2) ? deps.stderr : undefined,
    });
    deps.stderr.write(`vx: upgraded ${install.executable} to vx ${latest}; a running sentinel retires by itself and the next command starts the new one\n`);
    return project ? reexecScaffold(deps, install.executable, flags) : EXIT.ok;
  },
});
