#!/usr/bin/env node
// `npm run build`: the prebuilt bundle Pi loads (dist/pi-watchdog.cjs), so a start does not pass ~290
// TypeScript files through Pi's loader one by one. index.ts loads it when it is current and the sources
// otherwise. Pi's own packages are not bundled: index.ts hands the host's modules over (HOST_MODULES), so the
// bundle uses the very objects Pi uses. dist/build.json lists every input with its size and mtime; in a git
// checkout index.ts compares them, so an edited source is never shadowed by an older bundle.
// Without rolldown (a `--omit=dev` install, as `pi install git:…` does) it says so and exits 0: Pi then
// loads the sources, which works, only slower to start.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const BUNDLE = "dist/pi-watchdog.cjs";
export const MANIFEST = "dist/build.json";
/** The code of the watchdog itself, which the entry loads when a session first needs it (src/startup/). */
const CHUNKS = "chunks";
/** What index.ts imports and hands to the bundle under globalThis[HOST_KEY]. */
export const HOST_MODULES = [
	"@earendil-works/pi-ai",
	"@earendil-works/pi-coding-agent",
	"@earendil-works/pi-tui",
	"typebox",
	"typebox/value",
];
export const HOST_KEY = "pi-watchdog.host";
// Loaded on first use through createRequire (language server, YAML frontmatter, lock files) or by path
// (typescript, the server), or a UMD build whose inner requires a bundler cannot follow (jsonc-parser).
const EXTERNAL = ["jiti", "jsonc-parser", "proper-lockfile", "typescript", "typescript-language-server", "yaml"];

/** `clean`: keep no chunk of an earlier build (a tarball ships only its own). */
export async function build({ quiet = false, clean = false } = {}) {
	let rolldown;
	try {
		rolldown = await import("rolldown");
	} catch {
		if (!quiet) console.error("rolldown is not installed (a production install): Pi will load the TypeScript sources");
		return undefined;
	}
	// A source saved while the bundler read it would be recorded with its new mtime but bundled as it was:
	// the sources are stat-ed before and after, and the build runs again if one changed in between.
	for (let attempt = 1; ; attempt++) {
		const before = statsUnder(join(ROOT, "src"));
		const next = join(ROOT, "dist", `.next-${process.pid}`);
		rmSync(next, { recursive: true, force: true });
		try {
			const { inputs, hostIds, outputs } = await bundleOnce(rolldown, quiet, next);
			const changed = Object.keys(inputs).filter((file) => {
				const was = before.get(file);
				return was && (was[0] !== inputs[file][0] || was[1] !== inputs[file][1]);
			});
			if (changed.length === 0 || attempt === 3) {
				if (changed.length) throw new Error(`sources kept changing during the build: ${changed.join(", ")}`);
				install(next, outputs, clean);
				const manifest = { hostModules: [...hostIds].sort(), inputs, outputs };
				writeFileSync(join(ROOT, MANIFEST), `${JSON.stringify(manifest)}\n`);
				return { inputs: Object.keys(inputs).length, outputs };
			}
		} finally {
			rmSync(next, { recursive: true, force: true });
		}
	}
}

/**
 * Moves a finished build into dist/: the chunks first (their names carry their content's hash, so they never
 * replace a file a running Pi may still load), then the entry, which names them. Chunks of older builds go,
 * except the last build's unless `clean`: a Pi started from it loads its watchdog's chunk a moment later.
 */
function install(next, outputs, clean) {
	const dist = join(ROOT, "dist");
	const previous = clean ? [] : readPreviousOutputs();
	for (const file of outputs.filter((f) => f !== relative(dist, join(ROOT, BUNDLE)))) {
		mkdirSync(dirname(join(dist, file)), { recursive: true });
		renameSync(join(next, file), join(dist, file));
	}
	renameSync(join(next, relative(dist, join(ROOT, BUNDLE))), join(ROOT, BUNDLE));
	const keep = new Set([...outputs, ...previous]);
	if (!existsSync(join(dist, CHUNKS))) return;
	for (const name of readdirSync(join(dist, CHUNKS)))
		if (!keep.has(`${CHUNKS}/${name}`)) rmSync(join(dist, CHUNKS, name), { force: true });
}

function readPreviousOutputs() {
	try {
		const outputs = JSON.parse(readFileSync(join(ROOT, MANIFEST), "utf8")).outputs;
		return Array.isArray(outputs) ? outputs.filter((o) => typeof o === "string") : [];
	} catch {
		return [];
	}
}

/** Size and mtime of every file under `dir`, by path relative to the package. */
function statsUnder(dir) {
	const stats = new Map();
	for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true }))
		if (entry.isFile()) stats.set(...manifestEntry(join(entry.parentPath, entry.name)));
	return stats;
}

/** A file as the manifest records it: its path relative to the package (with `/`), its size and mtime. */
function manifestEntry(path) {
	const s = statSync(path);
	return [relative(ROOT, path).split(sep).join("/"), [s.size, s.mtimeMs]];
}

/**
 * Two bundles: the watchdog (src/watchdog-core.ts, in chunks/ under a name with its content's hash), then the
 * entry (src/extension.ts), which registers with Pi and loads the watchdog when a session first needs it.
 * Separate builds, so that the entry holds only the code it uses (a split build would put everything the two
 * share, and all that it imports, in a chunk the entry loads at once); the few helpers both use are in both.
 */
async function bundleOnce(rolldown, quiet, dir) {
	const hostIds = new Set();
	const core = await bundle(rolldown, quiet, hostIds, {
		input: join(ROOT, "src/watchdog-core.ts"),
		dir: join(dir, CHUNKS),
		entryFileNames: "watchdog-[hash].cjs",
	});
	const coreFile = `${CHUNKS}/${core.output[0].fileName}`;
	const entry = await bundle(rolldown, quiet, hostIds, {
		input: join(ROOT, "src/extension.ts"),
		dir,
		entryFileNames: relative(join(ROOT, "dist"), join(ROOT, BUNDLE)),
		core: `./${coreFile}`,
	});
	const inputs = {};
	for (const chunk of [...core.output, ...entry.output])
		for (const id of chunk.type === "chunk" ? chunk.moduleIds : [])
			if (isAbsolute(id)) {
				const [file, stat] = manifestEntry(id);
				inputs[file] = stat;
			}
	const outputs = [coreFile, entry.output[0].fileName];
	if (core.output.length !== 1 || entry.output.length !== 1) throw new Error("the build made more files than two");
	return { inputs, hostIds, outputs };
}

function bundle(rolldown, quiet, hostIds, { input, dir, entryFileNames, core }) {
	const src = join(ROOT, "src") + sep;
	return rolldown.build({
		input,
		// Our modules and the libraries we load do nothing when imported: one whose exports go unused stays out.
		treeshake: { moduleSideEffects: (id, external) => !external && !id.startsWith(src) },
		platform: "node",
		logLevel: quiet ? "silent" : "warn",
		external: (id) => id.startsWith("node:") || EXTERNAL.some((name) => id === name || id.startsWith(`${name}/`)),
		plugins: [
			{
				name: "pi-host-modules",
				resolveId(id) {
					if (core && id === "./watchdog-core.ts") return { id: core, external: true };
					if (!/^(@earendil-works\/|@mariozechner\/|typebox|@sinclair\/typebox)/.test(id)) return undefined;
					if (!HOST_MODULES.includes(id)) throw new Error(`${id} is a host module index.ts does not hand over`);
					hostIds.add(id);
					return `\0host:${id}`;
				},
				load(id) {
					if (!id.startsWith("\0host:")) return undefined;
					const name = JSON.stringify(id.slice("\0host:".length));
					return `module.exports = globalThis[Symbol.for(${JSON.stringify(HOST_KEY)})][${name}];`;
				},
			},
		],
		// The watchdog loads with `require`, not `import()`: Node would scan a CommonJS file imported as ESM for its
		// exports first, which costs more than loading it.
		output: {
			dir,
			format: "cjs",
			exports: "named",
			entryFileNames,
			codeSplitting: false,
			dynamicImportInCjs: false,
			// ASCII only (escapes in strings and regular expressions, no JSDoc): a file with one other character is
			// decoded into a two-byte string, which made reading and compiling the watchdog's megabyte about 5 ms slower.
			minify: { compress: false, mangle: false, codegen: { removeWhitespace: false, asciiOnly: true } },
			comments: { legal: true, annotation: false, jsdoc: false },
		},
	});
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
	const t = performance.now();
	const built = await build({ clean: process.argv.includes("--clean") });
	if (built) console.error(`built ${BUNDLE} from ${built.inputs} files in ${Math.round(performance.now() - t)} ms`);
}
