import { describe, expect, it } from "vitest";
import { compileGlob } from "../../../../src/review/tools/glob.ts";

function matcher(pattern: string) {
	const g = compileGlob(pattern);
	if (!g.ok) throw new Error(g.error);
	return g.matches;
}

describe("compileGlob", () => {
	it("matches names at any depth when the pattern has no slash", () => {
		const m = matcher("*.ts");
		expect(["a.ts", "src/a.ts", "src/.x/.hidden.ts"].every(m)).toBe(true);
		expect(m("a.tsx")).toBe(false);
		expect(m("a.TS")).toBe(false);
	});

	it("matches paths when it has one", () => {
		expect(matcher("src/*.ts")("src/a.ts")).toBe(true);
		expect(matcher("src/*.ts")("src/d/a.ts")).toBe(false);
		expect(matcher("src/**/*.ts")("src/a.ts")).toBe(true);
		expect(matcher("src/**/*.ts")("src/d/e/a.ts")).toBe(true);
		expect(matcher("**/test/**")("a/test/b/c.ts")).toBe(true);
		expect(matcher("./src/?.ts")("src/a.ts")).toBe(true);
	});

	it("supports classes, alternatives and escapes", () => {
		expect(matcher("[ab].txt")("a.txt")).toBe(true);
		expect(matcher("[!ab].txt")("a.txt")).toBe(false);
		expect(matcher("[a-c]x")("bx")).toBe(true);
		expect(matcher("*.{ts,js}")("x.js")).toBe(true);
		expect(matcher("{src,test}/**/*.{ts,md}")("test/a/b.md")).toBe(true);
		expect(matcher("a\\*b")("a*b")).toBe(true);
		expect(matcher("a\\*b")("axb")).toBe(false);
		expect(matcher("a{b")("a{b")).toBe(true);
		expect(matcher("a[b")("a[b")).toBe(true);
		expect(matcher("a+(b).c")("a+(b).c")).toBe(true);
	});

	it("refuses empty, absolute and climbing patterns and brace explosions", () => {
		expect(compileGlob(" ")).toMatchObject({ ok: false });
		expect(compileGlob("/etc/*")).toMatchObject({ ok: false });
		expect(compileGlob("src/../../*")).toMatchObject({ ok: false });
		expect(compileGlob("{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}")).toMatchObject({ ok: false });
	});
});
