// When index.ts may load the prebuilt bundle instead of the sources: never when a source it was built from
// changed in a checkout, always for an installed copy that ships it, never without a readable manifest.
import { mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { CODE_CACHE_KEY } from "../../../src/util/index.ts";
import { BUILD_MANIFEST, BUNDLE_FILE, bundleIsCurrent } from "../../../src/util/bundle-state.ts";
import { tempDir } from "../../support/temp.ts";

function builtPackage(options: { checkout: boolean }): string {
	const root = tempDir("pi-watchdog-bundle-state-");
	mkdirSync(join(root, "src"));
	mkdirSync(join(root, "dist"));
	if (options.checkout) mkdirSync(join(root, ".git"));
	writeFileSync(join(root, "src/a.ts"), "export const a = 1;\n");
	writeFileSync(join(root, "src/b.ts"), "export const b = 2;\n");
	writeFileSync(join(root, BUNDLE_FILE), "exports.a = 1;\n");
	mkdirSync(join(root, "dist/chunks"));
	writeFileSync(join(root, "dist/chunks/watchdog-abc.cjs"), "exports.b = 2;\n");
	const inputs: Record<string, [number, number]> = {};
	for (const file of ["src/a.ts", "src/b.ts"]) {
		const s = statSync(join(root, file));
		inputs[file] = [s.size, s.mtimeMs];
	}
	const outputs = ["chunks/watchdog-abc.cjs", "pi-watchdog.cjs"];
	writeFileSync(join(root, BUILD_MANIFEST), JSON.stringify({ inputs, outputs }));
	return root;
}

describe("bundleIsCurrent", () => {
	it("loads the bundle of a checkout whose inputs are as they were built", () => {
		expect(bundleIsCurrent(builtPackage({ checkout: true }), {})).toBe(true);
	});

	it("loads the sources when the watchdog's own bundle, which the entry loads later, is missing", () => {
		for (const checkout of [true, false]) {
			const root = builtPackage({ checkout });
			rmSync(join(root, "dist/chunks/watchdog-abc.cjs"));
			expect(bundleIsCurrent(root, {})).toBe(false);
		}
	});

	it("loads the sources of a checkout once a source was edited, even to the same size", () => {
		const root = builtPackage({ checkout: true });
		writeFileSync(join(root, "src/a.ts"), "export const a = 9;\n");
		utimesSync(join(root, "src/a.ts"), new Date(), new Date(Date.now() + 5_000));
		expect(bundleIsCurrent(root, {})).toBe(false);
	});

	it("loads the sources of a checkout when a source grew or is gone", () => {
		const grown = builtPackage({ checkout: true });
		const before = statSync(join(grown, "src/b.ts"));
		writeFileSync(join(grown, "src/b.ts"), "export const b = 2; // more\n");
		utimesSync(join(grown, "src/b.ts"), before.atime, before.mtime);
		expect(bundleIsCurrent(grown, {})).toBe(false);
		const gone = builtPackage({ checkout: true });
		writeFileSync(join(gone, BUILD_MANIFEST), readFileSync(join(gone, BUILD_MANIFEST), "utf8").replace("b.ts", "c.ts"));
		expect(bundleIsCurrent(gone, {})).toBe(false);
	});

	it("trusts an installed copy's bundle without comparing its files (npm resets their mtimes)", () => {
		const root = builtPackage({ checkout: false });
		writeFileSync(join(root, "src/a.ts"), "export const a = 9;\n");
		expect(bundleIsCurrent(root, {})).toBe(true);
	});

	it("loads the sources without a bundle, without a readable manifest, or when told to", () => {
		const noBundle = builtPackage({ checkout: false });
		writeFileSync(join(noBundle, "package.json"), "{}");
		expect(bundleIsCurrent(join(noBundle, "nowhere"), {})).toBe(false);
		const broken = builtPackage({ checkout: false });
		writeFileSync(join(broken, BUILD_MANIFEST), "{ not json");
		expect(bundleIsCurrent(broken, {})).toBe(false);
		const empty = builtPackage({ checkout: false });
		writeFileSync(join(empty, BUILD_MANIFEST), JSON.stringify({ inputs: {} }));
		expect(bundleIsCurrent(empty, {})).toBe(false);
		expect(bundleIsCurrent(builtPackage({ checkout: true }), { PI_WATCHDOG_SOURCES: "1" })).toBe(false);
	});
});

describe("the host modules index.ts hands to the bundle", () => {
	it("are exactly the ones the build lets the bundle import, under the same key", async () => {
		const build = (await import(pathToFileURL(join(import.meta.dirname, "../../../scripts/build.mjs")).href)) as {
			HOST_MODULES: string[];
			HOST_KEY: string;
		};
		const index = readFileSync(join(import.meta.dirname, "../../../index.ts"), "utf8");
		const table = index.slice(
			index.indexOf("const HOST_MODULES"),
			index.indexOf("};", index.indexOf("const HOST_MODULES")),
		);
		const handed = [...table.matchAll(/^\t(?:"([^"]+)"|(\w+))[:,]/gm)].map((m) => m[1] ?? m[2]).sort();
		expect(handed).toEqual([...build.HOST_MODULES].sort());
		expect(index).toContain(`Symbol.for("${build.HOST_KEY}")`);
		expect(index).toContain(`Symbol.for("${CODE_CACHE_KEY.description}")`);
	});

	it("come with the bundle and manifest where the entry looks for them", async () => {
		const build = (await import(pathToFileURL(join(import.meta.dirname, "../../../scripts/build.mjs")).href)) as {
			BUNDLE: string;
			MANIFEST: string;
		};
		expect(join(build.BUNDLE)).toBe(BUNDLE_FILE);
		expect(join(build.MANIFEST)).toBe(BUILD_MANIFEST);
	});
});
