/** MCH-03: what vx a machine has, and this binary copied there when it has none or an older one. */
import { drainBounded } from "../bounded-output";
import type { Deps } from "../deps";
import { VxError } from "../errors";
import { hostPlatform } from "../release-info";
import { ensureStateDir } from "../state/files";
import { GUARDS } from "../time";
import { VERSION } from "../version";
import { sshDir } from "./registry";
import { type Reach, SSH_FAILED, lastLine, shScript, sshArgv, sshOrFail, unreachable } from "./ssh";

/** Where vx puts itself on a machine: the installer's place, so a person there finds it on PATH too. */
const TARGET = "$HOME/.local/bin";

// The platform, then the vx a login would run (ours first), its path and version; "none" without one.
const PROBE = `uname -sm
v="${TARGET}/vx"
[ -x "$v" ] || v=$(command -v vx 2>/dev/null) || v=""
if [ -n "$v" ]; then printf '%s\\n' "$v"; "$v" --version 2>/dev/null || echo unknown; else echo none; fi`;

// stdin to a temporary beside the target, checked by running it, then one rename: a cut copy never replaces a working vx.
const INSTALL = `set -e
d="${TARGET}"
mkdir -p "$d"
t="$d/.vx.$$.tmp"
trap 'rm -f "$t"' EXIT
cat > "$t"
chmod 755 "$t"
"$t" --version
mv -f "$t" "$d/vx"
trap - EXIT
printf '%s\\n' "$d/vx"`;

export type Probe = { platform: string; vxPath: string | undefined; vxVersion: string | undefined };

/** `uname -sm` in release-info's words (`linux-x64`); the raw words when vx ships nothing for it. */
export function platformOf(uname: string): string {
  const [os = "", machine = ""] = uname.trim().split(/\s+/);
  const arch = machine === "x86_64" || machine === "amd64" ? "x64" : machine === "aarch64" || machine === "arm64" ? "arm64" : machine;
  return `${os.toLowerCase()}-${arch}`;
}

export function thisPlatform(): string {
  const p = hostPlatform();
  return p ? `${p.os}-${p.arch}` : `${process.platform}-${process.arch}`;
}

/** `vx 1.2.3` -> `1.2.3`. */
function versionOf(text: string): string | undefined {
  return /^vx (\S+)$/m.exec(text)?.[1];
}

export function parseProbe(stdout: string): Probe {
  const [uname = "", path = "none", version = ""] = stdout.split("\n").map((l) => l.trim());
  return { platform: platformOf(uname), vxPath: path === "none" ? undefined : path, vxVersion: path === "none" ? undefined : versionOf(version) };
}

export async function probe(deps: Pick<Deps, "exec" | "env">, root: string, to: Reach): Promise<Probe> {
  const res = await sshOrFail(deps, root, to, shScript(PROBE), { timeoutMs: GUARDS.sshProbe });
  if (res.code !== 0) throw new VxError(`machine ${to.name}: its shell could not run vx's probe: ${lastLine(res.stderr)} - check its login shell with: ssh ${to.destination} uname -sm`);
  return parseProbe(res.stdout);
}

/** What MCH-03 does with the vx it found: keep it, install ours, or refuse. */
export function installPlan(found: Probe, name: string, force: boolean): "keep" | "install" {
  if (found.vxVersion === VERSION) return "keep";
  if (found.platform !== thisPlatform()) {
    throw new VxError(`machine ${name} is ${found.platform} and this vx is ${thisPlatform()}, so it cannot be copied there - install vx ${VERSION} there yourself, then add it again`);
  }
  if (found.vxVersion && !force && isNewer(found.vxVersion, VERSION)) {
    throw new VxError(`machine ${name} runs vx ${found.vxVersion}, newer than this ${VERSION} - upgrade here, or add it with --force to install this one there`);
  }
  return "install";
}

/** A version semver cannot read is not newer. */
function isNewer(a: string, b: string): boolean {
  try {
    return Bun.semver.order(a, b) > 0;
  } catch {
    return false;
  }
}

/** Streams `binary` over ssh's stdin into INSTALL; the path it was installed at. */
export async function install(deps: Pick<Deps, "env">, root: string, to: Reach, binary: string): Promise<string> {
  ensureStateDir(root, sshDir(root));
  const proc = Bun.spawn(sshArgv(root, to.destination, shScript(INSTALL)), {
    env: deps.env as Record<string, string>,
    stdin: Bun.file(binary),
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), GUARDS.sshCommand);
  const out = drainBounded(proc.stdout, { tailLines: 5 });
  const err = drainBounded(proc.stderr, { tailLines: 5 });
  const code = await proc.exited;
  clearTimeout(timer);
  await Promise.all([out.done, err.done]);
  if (code === SSH_FAILED) throw unreachable(to, err.tail());
  const path = out.tail().split("\n").at(-1)?.trim() ?? "";
  if (code !== 0 || versionOf(out.tail()) !== VERSION || !path.startsWith("/")) {
    throw new VxError(
      `machine ${to.name}: could not install vx there (exit ${code}): ${lastLine(err.tail() || out.tail())} - check its free space and ~/.local/bin, or install vx ${VERSION} there yourself and add it again`,
    );
  }
  return path;
}
