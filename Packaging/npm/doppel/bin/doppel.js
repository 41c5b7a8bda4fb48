#!/usr/bin/env node
// Runs the doppel binary of the package for this platform (esbuild's and biome's pattern: npm
// installs only the optional dependency whose "os" and "cpu" match), with the arguments, the
// standard streams and the environment of this process, and exits as it exits.
"use strict";
const { spawnSync } = require("node:child_process");

const packages = {
  "linux x64": "@doppel-swift/doppel-linux-x64",
  "linux arm64": "@doppel-swift/doppel-linux-arm64",
  "darwin x64": "@doppel-swift/doppel-darwin",
  "darwin arm64": "@doppel-swift/doppel-darwin",
};
const platform = `${process.platform} ${process.arch}`;
const name = packages[platform];
if (!name) {
  console.error(`doppel has no binary for ${platform}; it runs on Linux (x64, arm64) and macOS. Build it from source: https://github.com/doppel-swift/Doppel`);
  process.exit(1);
}
let binary;
try {
  binary = require.resolve(`${name}/bin/doppel`);
} catch {
  console.error(`The package ${name}, which holds doppel for ${platform}, is not installed. Install again without --no-optional (or --omit=optional).`);
  process.exit(1);
}
const result = spawnSync(binary, process.argv.slice(2), { stdio: "inherit" });
if (result.error) {
  console.error(`doppel could not be started (${binary}): ${result.error.message}`);
  process.exit(1);
}
if (result.signal) process.kill(process.pid, result.signal);
process.exit(result.status ?? 1);
