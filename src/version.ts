/** The vx version: embedded by the build (`VX_VERSION`), else read from package.json in development. */
import pkg from "../package.json" with { type: "json" };

declare const VX_VERSION: string | undefined;

export const VERSION: string = typeof VX_VERSION === "string" ? VX_VERSION : pkg.version;
