#!/usr/bin/env node
// `npm run build`: the prebuilt bundle Pi loads (dist/pi-watchdog.cjs), so a start does not pass ~290
// TypeScript files through Pi's loader one by one. index.ts loads it when it is current and the sources
// otherwise. Pi's own packages are not bundled: index.ts hands the host's modules over (HOST_MODULES), so the
// bundle uses the very objects Pi uses. dist/build.json lists every input with its size and mtime; in a git
// checkout index.ts compares them, so an edited source is never shadowed by an older bundle.
// Without rolldown (a `--omit=dev` install, as `pi install git:…` does) it says so and exits 0: Pi then
// loads the sources, which works, only slower to start.
import { readdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const BUNDLE = "dist/pi-watchdog.cjs";
export const MANIFEST = "dist/build.json";
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

export async function build({ quiet = false } = {}) {
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
		const { inputs, hostIds } = await bundleOnce(rolldown, quiet);
		const changed = Object.keys(inputs).filter((file) => {
			const was = before.get(file);
			return was && (was[0] !== inputs[file][0] || was[1] !== inputs[file][1]);
		});
		if (changed.length === 0 || attempt === 3) {
			if (changed.length) throw new Error(`sources kept changing during the build: ${changed.join(", ")}`);
			renameSync(join(ROOT, `${BUNDLE}.tmp`), join(ROOT, BUNDLE));
			writeFileSync(join(ROOT, MANIFEST), `${JSON.stringify({ hostModules: [...hostIds].sort(), inputs })}\n`);
			return { inputs: Object.keys(inputs).length };
		}
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

async function bundleOnce(rolldown, quiet) {
	const hostIds = new Set();
	const result = await rolldown.build({
		input: join(ROOT, "src/extension.ts"),
		platform: "node",
		logLevel: quiet ? "silent" : "warn",
		external: (id) => id.startsWith("node:") || EXTERNAL.some((name) => id === name || id.startsWith(`${name}/`)),
		plugins: [
			{
				name: "pi-host-modules",
				resolveId(id) {
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
		output: { file: join(ROOT, `${BUNDLE}.tmp`), format: "cjs", exports: "named", codeSplitting: false },
	});
	const inputs = {};
	for (const chunk of result.output)
		for (const id of chunk.type === "chunk" ? chunk.moduleIds : [])
			if (isAbsolute(id)) {
				const [file, stat] = manifestEntry(id);
				inputs[file] = stat;
			}
	return { inputs, hostIds };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
	const t = performance.now();
	const built = await build();
	if (built) console.error(`built ${BUNDLE} from ${built.inputs} files in ${Math.round(performance.now() - t)} ms`);
}
