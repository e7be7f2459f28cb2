// Embedded at build time. Only `bun run release` makes a "release" build: `vx upgrade` replaces only those, never a checkout's build.
import pkg from "../package.json" with { type: "json" };

declare const VX_VERSION: string | undefined;
declare const VX_BUILD_KIND: string | undefined;

export const VERSION: string = typeof VX_VERSION === "string" ? VX_VERSION : pkg.version;

export const BUILD_KIND: "release" | "source" = typeof VX_BUILD_KIND === "string" && VX_BUILD_KIND === "release" ? "release" : "source";
