// Every package the project depends on earns its place: a runtime dependency is named by the
// code users load (an import, or a package Pi's loader or the LSP pre-pass resolves by name),
// and a development dependency by the tests, benches, scripts or as the dev copy of a host package.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
	dependencies: Record<string, string>;
	devDependencies: Record<string, string>;
	peerDependencies: Record<string, string>;
	scripts: Record<string, string>;
};

/** Development packages no file imports, each with the reason it is there. */
const TOOLS: Record<string, string> = {
	node: "puts Node 22 first on the PATH of npm scripts (Pi 1.6 needs Node >= 22.19)",
	"@types/node": "Node's types for the type check",
	"@biomejs/biome": "the formatter and linter `npm run lint` runs",
};

function files(dir: string, ext: RegExp): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
		if (e.name === "node_modules" || e.name.startsWith(".")) return [];
		const path = join(dir, e.name);
		return e.isDirectory() ? files(path, ext) : ext.test(e.name) ? [path] : [];
	});
}

/** Whether a text names a package as a module specifier: `"name"`, `"name/…"` (imports, resolutions). */
function names(text: string, name: string): boolean {
	const quoted = name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
	return new RegExp(`["'\`]${quoted}(?:/[^"'\`]*)?["'\`]`).test(text);
}

const read = (paths: string[]) => paths.map((p) => readFileSync(p, "utf8")).join("\n");
const shipped = read([
	...files(join(ROOT, "src"), /\.ts$/),
	...files(join(ROOT, "bin"), /\.m?js$/),
	join(ROOT, "index.ts"),
]);
const development = read([
	...files(join(ROOT, "test"), /\.(ts|mts|mjs)$/),
	...files(join(ROOT, "bench"), /\.(ts|mts|mjs)$/),
	...files(join(ROOT, "scripts"), /\.(ts|mts|mjs)$/),
	join(ROOT, "vitest.config.ts"),
]);

it("uses every runtime dependency in the code users load", () => {
	const unused = Object.keys(pkg.dependencies).filter((name) => !names(shipped, name));
	expect(unused).toEqual([]);
});

it("uses every development dependency in tests, benches or scripts, or says why it is there", () => {
	const scripts = Object.values(pkg.scripts).join("\n");
	const unused = Object.keys(pkg.devDependencies).filter((name) => {
		if (name in TOOLS || name in pkg.peerDependencies) return false;
		const typed = name.startsWith("@types/") ? name.slice("@types/".length) : undefined;
		if (typed && typed in pkg.dependencies) return false;
		const bin = name === "typescript" ? "tsc" : name.split("/").at(-1);
		return !names(development, name) && !names(shipped, name) && !new RegExp(`\\b${bin}\\b`).test(scripts);
	});
	expect(unused).toEqual([]);
});

it("finds a package nobody names (the checks above can fail)", () => {
	expect(names(shipped, "left-pad")).toBe(false);
	expect(names('import { x } from "zod";', "zod")).toBe(true);
	expect(names('require.resolve("typescript/package.json")', "typescript")).toBe(true);
	expect(names('"typescript-language-server"', "typescript")).toBe(false);
});
