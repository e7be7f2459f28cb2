/**
 * How vx is compiled, in one place: scripts/build.ts builds `dist/vx` with it, and benchmarks build
 * their baselines with it so a floor program pays what vx pays for Bun's options.
 */
export type VxBuildOptions = { entry?: string; outfile: string; version: string; release?: boolean; target?: string; execArgv?: string[] };

/** The runtime flags the compiled binary starts with. */
export const VX_EXEC_ARGV: readonly string[] = ["--smol"];

export function vxBuildConfig(o: VxBuildOptions): Bun.BuildConfig {
  return {
    entrypoints: [o.entry ?? "./src/cli.ts"],
    minify: true,
    bytecode: true,
    splitting: true,
    format: "esm",
    sourcemap: "none",
    define: {
      VX_VERSION: JSON.stringify(o.version),
      VX_BUILD_KIND: JSON.stringify(o.release ? "release" : "source"),
    },
    compile: {
      outfile: o.outfile,
      autoloadDotenv: false,
      execArgv: [...(o.execArgv ?? VX_EXEC_ARGV)],
      autoloadBunfig: false,
      ...(o.target ? { target: o.target as "bun-linux-x64" } : {}),
    },
  };
}
