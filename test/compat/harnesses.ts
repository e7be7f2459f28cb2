/**
 * The real harness CLIs the compat suite runs, pinned here and only here, installed from the npm
 * registry into a cache outside the repository (kept between runs). A harness that cannot be
 * installed makes its tests fail with the reason, never pass silently.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";

export type HarnessName = "claude" | "pi" | "opencode" | "codex" | "gemini" | "copilot";
/** Pinned and installable. */
export type CompatHarness = HarnessName;

export const PINNED: Record<CompatHarness, { pkg: string; version: string }> = {
  claude: { pkg: "@anthropic-ai/claude-code", version: "2.1.332" },
  pi: { pkg: "@mariozechner/pi-coding-agent", version: "0.73.1" },
  opencode: { pkg: "opencode-ai", version: "1.18.33" },
  codex: { pkg: "@openai/codex", version: "0.171.0" },
  gemini: { pkg: "@google/gemini-cli", version: "0.61.0" },
  copilot: { pkg: "@github/copilot", version: "1.0.102" },
};

/** The test preload points HOME at a temp dir; the cache belongs to the real user. */
export function cacheDir(): string {
  return process.env.VXCOMPAT_CACHE || join(userInfo().homedir, ".cache", "vx-compat");
}

const installs = new Map<CompatHarness, Promise<string>>();

/** The harness's executable, installing the pinned version first when the cache lacks it. */
export function harness(name: CompatHarness): Promise<string> {
  let p = installs.get(name);
  if (!p) {
    p = install(name);
    installs.set(name, p);
  }
  return p;
}

async function install(name: CompatHarness): Promise<string> {
  const { pkg, version } = PINNED[name];
  const dir = join(cacheDir(), `${name}-${version}`);
  const bin = join(dir, "node_modules", ".bin", name);
  const marker = join(dir, ".vx-installed");
  if (existsSync(bin) && existsSync(marker) && readFileSync(marker, "utf8").trim() === `${pkg}@${version}`) return bin;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const proc = Bun.spawn(["npm", "install", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error", `${pkg}@${version}`], {
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, HOME: userInfo().homedir },
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0 || !existsSync(bin)) {
    throw new Error(`could not install ${pkg}@${version} from the npm registry (npm exit ${code}): ${(err || out).trim().slice(-800)}`);
  }
  const check = Bun.spawnSync([bin, "--version"], { stdout: "pipe", stderr: "pipe" });
  // Pi prints its version on stderr when its stdin is not a terminal (CI has none): read both.
  if (check.exitCode !== 0 || !(check.stdout.toString() + check.stderr.toString()).includes(version)) {
    throw new Error(`${pkg}@${version} installed but \`${name} --version\` printed: ${(check.stdout.toString() + check.stderr.toString()).trim()}`);
  }
  writeFileSync(marker, `${pkg}@${version}\n`);
  return bin;
}
