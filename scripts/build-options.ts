/**
 * How vx is compiled, in one place: scripts/build.ts builds `dist/vx` with it, and the benches build
 * their "like vx" baselines with it, so a floor program pays what vx pays for Bun's options.
 */
export type VxBuildOptions = { entry?: string; outfile: string; version: string; release?: boolean; target?: string; execArgv?: string[] };

/**
 * The runtime flags the compiled binary starts with. No `--smol`: it slowed every start (the Stop
 * hook's drain runs on every commander turn) and the sentinel, the long-lived process, held no less
 * anonymous memory with it (bench/drain.ts, bench/sentinel-pass.ts).
 */
export const VX_EXEC_ARGV: readonly string[] = [];

/** The build flags that change how the program starts: what a "built like vx" baseline shares. */
export const LIKE_VX = { bytecode: true, format: "esm" } as const;

/**
 * The runtime never autoloads `.env` or bunfig from whatever directory it runs in, and starts with JavaScriptCore's tier-up
 * thresholds raised 8 times (`jitPolicy`): a command runs for a few milliseconds, so compiling its start-up code rarely pays
 * back (vx status and vx report start 13-15 % cheaper, bench/startup.ts). A process that stays to work, the sentinel, the
 * forum server, a machine's relay, sets the normal policy once it is in its loop (src/jit.ts). Higher scales gained nothing more.
 */
export const LIKE_VX_COMPILE = { autoloadDotenv: false, autoloadBunfig: false, jitPolicy: 8 } as const;

export function vxBuildConfig(o: VxBuildOptions): Bun.BuildConfig {
  const execArgv = [...(o.execArgv ?? VX_EXEC_ARGV)];
  return {
    entrypoints: [o.entry ?? "./src/cli.ts"],
    ...LIKE_VX,
    minify: true,
    splitting: true,
    sourcemap: "none",
    define: {
      VX_VERSION: JSON.stringify(o.version),
      VX_BUILD_KIND: JSON.stringify(o.release ? "release" : "source"),
    },
    compile: {
      outfile: o.outfile,
      ...LIKE_VX_COMPILE,
      ...(execArgv.length > 0 ? { execArgv } : {}),
      ...(o.target ? { target: o.target as "bun-linux-x64" } : {}),
    },
  };
}
