/**
 * Builds the control plane's binaries from their pinned Go modules, once, into a cache
 * outside the clone: `<cache>/<release key>/bin/`. Each component gets a small wrapper
 * module (`go.mod` requiring the pinned release) in which `go build` resolves and checks
 * every dependency through the module proxy and checksum database; a binary is written
 * under a temporary name and renamed when complete, so an interrupted build is never
 * mistaken for a finished one.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { COMPONENTS, releaseKey, type GoComponent } from "./versions.ts";

/** A build that cannot run or did not succeed: one line a person can act on. */
export class BuildError extends Error {
  override readonly name = "BuildError";
}

/** Where the binaries live. */
export interface Toolchain {
  readonly binDir: string;
  /** Absolute path of a binary by name (`kube-apiserver`, `etcd`, `kwok`, …). */
  bin(name: string): string;
}

/** How to build. */
export interface BuildOptions {
  /** The cache root (default `$XDG_CACHE_HOME/edgeloop` or `~/.cache/edgeloop`). */
  readonly cacheDir: string;
  /** The `go` command (default `go` on PATH). */
  readonly go?: string;
  /** A line per step, and a line every `tickSeconds` while a binary compiles. */
  readonly progress?: (line: string) => void;
  readonly tickSeconds?: number;
  /** The environment `go` runs with (PATH, HOME, GOPROXY, …): the entry point's. */
  readonly env: NodeJS.ProcessEnv;
}

/** The default cache root, from the environment the entry point read. */
export function defaultCacheDir(env: Readonly<Record<string, string | undefined>>): string {
  return env.EDGELOOP_CACHE_DIR ?? join(env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "edgeloop");
}

/** The toolchain folder for the pinned release, whether or not it is built yet. */
export function toolchainAt(cacheDir: string, components: readonly GoComponent[] = COMPONENTS): Toolchain {
  const binDir = join(cacheDir, releaseKey(components), "bin");
  return { binDir, bin: (name) => join(binDir, name) };
}

/** The binaries of `components` not yet in the cache. */
export function missingBinaries(toolchain: Toolchain, components: readonly GoComponent[] = COMPONENTS): string[] {
  return components.flatMap((c) => Object.keys(c.binaries)).filter((name) => !existsSync(toolchain.bin(name)));
}

/** Builds what is missing (nothing when all is cached: the next start takes seconds). */
export async function ensureToolchain(options: BuildOptions, components: readonly GoComponent[] = COMPONENTS): Promise<Toolchain> {
  const toolchain = toolchainAt(options.cacheDir, components);
  const missing = missingBinaries(toolchain, components);
  if (missing.length === 0) return toolchain;
  const go = options.go ?? "go";
  const version = goVersion(go, options.env, components);
  const progress = options.progress ?? ((): void => undefined);
  mkdirSync(toolchain.binDir, { recursive: true });
  const release = await buildLock(join(toolchain.binDir, ".."), progress);
  try {
    await buildMissing(toolchain, components, go, version, options, progress);
  } finally {
    release();
  }
  return toolchain;
}

async function buildMissing(toolchain: Toolchain, components: readonly GoComponent[], go: string, version: string, options: BuildOptions, progress: (line: string) => void): Promise<void> {
  // Another process may have built them while this one waited for the lock.
  const missing = missingBinaries(toolchain, components);
  if (missing.length === 0) return;
  progress(`building ${missing.join(", ")} with ${version} (once; cached in ${toolchain.binDir})`);
  const total = missing.length;
  let done = 0;
  for (const component of components) {
    const names = Object.keys(component.binaries).filter((name) => missing.includes(name));
    if (names.length === 0) continue;
    const dir = join(toolchain.binDir, "..", "src", component.module.replaceAll("/", "_"));
    writeWrapperModule(dir, component, go, options.env);
    for (const name of names) {
      done += 1;
      await buildBinary({ go, dir, component, name, out: toolchain.bin(name), step: `${done}/${total}`, progress, tickSeconds: options.tickSeconds ?? 30, env: options.env });
    }
  }
}

/**
 * One build of a release at a time, across processes (two test files starting control
 * planes at once): a lock folder holding the builder's pid; a lock whose process is gone
 * is taken over. Resolves with its release.
 */
async function buildLock(releaseDir: string, progress: (line: string) => void): Promise<() => void> {
  const lock = join(releaseDir, ".building");
  let told = false;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, "pid"), String(process.pid));
      return () => rmSync(lock, { recursive: true, force: true });
    } catch {
      const holder = readPid(join(lock, "pid"));
      if (holder > 0 && !alive(holder)) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (!told) progress(`waiting for another build of the same release (pid ${holder || "?"})`);
      told = true;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

/** The pid in a lock's file; 0 while its writer has not written it yet (or the lock just went). */
function readPid(file: string): number {
  try {
    return Number(readFileSync(file, "utf8")) || 0;
  } catch {
    return 0;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `go version`'s answer, or a BuildError saying Go is missing. */
function goVersion(go: string, env: NodeJS.ProcessEnv, components: readonly GoComponent[]): string {
  const result = spawnSync(go, ["version"], { encoding: "utf8", env });
  if (result.error || result.status !== 0) {
    throw new BuildError(`Go is required to build ${components === COMPONENTS ? "the control plane" : "a peer"} (${components.map((c) => `${c.module} ${c.version}`).join(", ")}) and '${go}' was not found on PATH: install Go 1.26 or newer`);
  }
  return result.stdout.trim().replace(/^go version /, "");
}

/** A `replace` of one module by a published version of another (a local folder is never copied). */
export interface Replacement {
  readonly from: string;
  readonly to: string;
  readonly version: string;
}

/**
 * The wrapper module's go.mod: the pinned release; for Kubernetes its staging modules at
 * the matching version; for a module that pins its dependencies through `replace`, those
 * `inherited` replacements (with the component's overrides).
 */
export function wrapperGoMod(component: GoComponent, staging: readonly string[] = [], inherited: readonly Replacement[] = []): string {
  const fromStaging = component.stagingVersion ? staging.map((module) => ({ from: module, to: module, version: component.stagingVersion ?? "" })) : [];
  const overrides = component.replaceOverrides ?? {};
  const replaces = [...fromStaging, ...inherited].map((r) => `\t${r.from} => ${r.to} ${overrides[r.from] ?? r.version}`);
  return [
    "// Generated by edgeloop's cluster/build.ts: builds the pinned release's binaries.",
    "module edgeloop.dev/control-plane-build",
    "",
    "go 1.26.0",
    "",
    `require ${component.module} ${component.version}`,
    ...(replaces.length ? ["", "replace (", ...replaces, ")"] : []),
    "",
  ].join("\n");
}

/** The modules `k8s.io/kubernetes` replaces with its own staging folders, read from its published go.mod. */
export function stagingModules(goMod: string): string[] {
  const block = /^replace \(\n([\s\S]*?)\n\)/m.exec(goMod)?.[1] ?? "";
  return block
    .split("\n")
    .map((line) => /^\s*(\S+)\s+=>\s+\.\/staging\//.exec(line)?.[1])
    .filter((m): m is string => m !== undefined);
}

/** Every `replace` of a go.mod that names a published version (in a block or on a line of its own). */
export function moduleReplacements(goMod: string): Replacement[] {
  const lines = goMod.split("\n");
  const replaces: Replacement[] = [];
  let inBlock = false;
  for (const line of lines) {
    if (/^replace\s*\(\s*$/.test(line)) inBlock = true;
    else if (inBlock && /^\)\s*$/.test(line)) inBlock = false;
    const body = inBlock ? line : /^replace\s+(.*)$/.exec(line)?.[1];
    const match = body === undefined ? null : /^\s*(\S+)(?:\s+\S+)?\s+=>\s+(\S+)\s+(v\S+)\s*$/.exec(body);
    if (match) replaces.push({ from: match[1] ?? "", to: match[2] ?? "", version: match[3] ?? "" });
  }
  return replaces;
}

function writeWrapperModule(dir: string, component: GoComponent, go: string, env: NodeJS.ProcessEnv): void {
  mkdirSync(dir, { recursive: true });
  const ownGoMod = component.stagingVersion || component.replacesFromGoMod ? readModuleGoMod(component, go, env) : "";
  const goMod = wrapperGoMod(component, component.stagingVersion ? stagingModules(ownGoMod) : [], component.replacesFromGoMod ? moduleReplacements(ownGoMod) : []);
  const path = join(dir, "go.mod");
  if (!existsSync(path) || readFileSync(path, "utf8") !== goMod) {
    writeFileSync(path, goMod);
    rmSync(join(dir, "go.sum"), { force: true });
  }
}

/** The published go.mod of the component's pinned release (downloaded through the module proxy). */
function readModuleGoMod(component: GoComponent, go: string, env: NodeJS.ProcessEnv): string {
  const download = spawnSync(go, ["mod", "download", "-json", `${component.module}@${component.version}`], { encoding: "utf8", env });
  const goModPath = download.status === 0 ? (JSON.parse(download.stdout) as { GoMod?: string }).GoMod : undefined;
  if (!goModPath) throw new BuildError(`could not download ${component.module} ${component.version}: ${lastLines(download.stderr || download.stdout)}`);
  return readFileSync(goModPath, "utf8");
}

interface BinaryBuild {
  readonly go: string;
  readonly dir: string;
  readonly component: GoComponent;
  readonly name: string;
  readonly out: string;
  readonly step: string;
  readonly progress: (line: string) => void;
  readonly tickSeconds: number;
  readonly env: NodeJS.ProcessEnv;
}

async function buildBinary(b: BinaryBuild): Promise<void> {
  const pkg = b.component.binaries[b.name] ?? "";
  const started = Date.now();
  b.progress(`[${b.step}] building ${b.name} from ${b.component.module} ${b.component.version}`);
  const partial = `${b.out}.partial`;
  const stamps = Object.entries(b.component.stamps ?? {}).map(([name, value]) => `-X '${name}=${value}'`);
  const args = ["build", "-mod=mod", "-trimpath", "-ldflags", ["-s", "-w", ...stamps].join(" "), "-o", partial, pkg];
  const child = spawn(b.go, args, { cwd: b.dir, env: { ...b.env, GOTOOLCHAIN: "local" }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output = (output + chunk.toString("utf8")).slice(-20_000)));
  child.stderr.on("data", (chunk: Buffer) => (output = (output + chunk.toString("utf8")).slice(-20_000)));
  const tick = setInterval(() => b.progress(`[${b.step}] still building ${b.name} (${Math.round((Date.now() - started) / 1000)} s)`), b.tickSeconds * 1000);
  const code = await new Promise<number>((resolve) => {
    child.on("error", () => resolve(-1));
    child.on("close", (status) => resolve(status ?? -1));
  }).finally(() => clearInterval(tick));
  if (code !== 0) {
    rmSync(partial, { force: true });
    throw new BuildError(`building ${b.name} from ${b.component.module} ${b.component.version} failed: ${lastLines(output)}`);
  }
  renameSync(partial, b.out);
  b.progress(`[${b.step}] built ${b.name} in ${Math.round((Date.now() - started) / 1000)} s`);
}

/** The last few lines of a tool's output, joined, for a one-line error. */
function lastLines(text: string, count = 3): string {
  return text.trim().split("\n").slice(-count).join(" | ") || "(no output)";
}
