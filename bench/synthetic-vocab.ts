// The vocabulary and randomness of the synthetic agent (synthetic-calls.ts): names, words and
// a seeded generator, so a stream is the same for the same seed.
import { seededRandom } from "../test/support/seeded-random.ts";

export const ROOT = "/Users/dev/work/shop-api";

/** The seeded generator the tests use too. */
export const rng = seededRandom;

export const WORDS = [
	"order",
	"cart",
	"user",
	"session",
	"token",
	"price",
	"item",
	"stock",
	"invoice",
	"payment",
	"cache",
	"retry",
	"queue",
	"event",
	"handler",
	"config",
	"route",
	"schema",
	"record",
	"batch",
	"refund",
	"coupon",
	"tax",
	"ledger",
	"webhook",
];
export const SUFFIX = [
	"Id",
	"List",
	"Map",
	"Count",
	"State",
	"Result",
	"Options",
	"Error",
	"Service",
	"Store",
	"Total",
	"Key",
];
export const VERBS = [
	"get",
	"set",
	"load",
	"save",
	"apply",
	"parse",
	"build",
	"check",
	"resolve",
	"emit",
	"merge",
	"compute",
];
export const DIRS = [
	"orders",
	"cart",
	"users",
	"payments",
	"billing",
	"inventory",
	"auth",
	"webhooks",
	"shared",
	"db",
	"http",
	"jobs",
];
export const PROSE =
	"the a value is when this for to of and not it we should handle case each only once before after retry again cache stale key missing order total".split(
		" ",
	);

export function pick<T>(r: () => number, xs: readonly T[]): T {
	return xs[Math.floor(r() * xs.length)];
}
export function int(r: () => number, lo: number, hi: number): number {
	return lo + Math.floor(r() * (hi - lo + 1));
}
export function cap(s: string): string {
	return s[0].toUpperCase() + s.slice(1);
}

export interface Vocab {
	ascii: string[];
	mixed: string[];
	patterns: string[];
}

/** Code lines to build files from: ASCII only, and a variant with ~4% non-ASCII comments. */
export function vocabulary(seed: number): Vocab {
	const r = rng(seed ^ 0x5eed);
	const id = () => `${pick(r, WORDS)}${pick(r, SUFFIX)}`;
	const fn = () => `${pick(r, VERBS)}${cap(pick(r, WORDS))}`;
	const ty = () => `${cap(pick(r, WORDS))}${pick(r, SUFFIX)}`;
	const ind = () => "\t".repeat(int(r, 0, 3));
	const words = (n: number) => Array.from({ length: n }, () => pick(r, PROSE)).join(" ");
	const templates: Array<() => string> = [
		() => `${ind()}const ${id()} = ${fn()}(${id()}, ${int(r, 0, 500)});`,
		() => `${ind()}if (!${id()}) return ${id()};`,
		() => `${ind()}// ${words(int(r, 3, 12))}`,
		() => `export function ${fn()}(${id()}: ${ty()}, options: ${ty()} = {}): ${ty()} {`,
		() => `${ind()}}`,
		() => `import { ${fn()}, type ${ty()} } from "../${pick(r, DIRS)}/${pick(r, WORDS)}.ts";`,
		() => `${ind()}${id()}.${fn()}("${words(2)}");`,
		() => "",
		() => `${ind()}await this.${id()}.${fn()}({ ${id()}: ${int(r, 1, 99)}, ${id()}: ${id()} });`,
		() => `${ind()}throw new Error(\`${words(int(r, 3, 8))}: \${${id()}}\`);`,
		() => `${ind()}for (const ${pick(r, WORDS)} of ${id()}) ${id()}.push(${fn()}(${pick(r, WORDS)}));`,
		() => `${ind()}expect(${fn()}(${id()})).toEqual({ ${id()}: ${int(r, 0, 9)} });`,
	];
	const ascii = Array.from({ length: 4096 }, () => pick(r, templates)());
	const uni = ["—", "→", "…", "✓", "é", "€"];
	const mixed = ascii.map((line) => (r() < 0.04 ? `${line} // ${words(3)} ${pick(r, uni)} ${words(2)}` : line));
	const patterns = Array.from({ length: 160 }, () => (r() < 0.6 ? id() : r() < 0.5 ? fn() : `${fn()}\\(`));
	return { ascii, mixed, patterns };
}

export interface RepoFile {
	path: string;
	rel: string;
	lines: number;
	seed: number;
	unicode: boolean;
}

export interface Phase {
	end: number;
	stuck: boolean;
}

/** The agent. Episodes return arrays of calls; `index` is the index the next call will have. */
