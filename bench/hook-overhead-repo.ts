// What the hook-overhead bench works on: a generated repository (ten source, test and doc files of
// ~1,300 lines, every function with its own name) and the agent's read-only tool calls over it
// (chunked reads, greps for the defined names, finds of distinct globs, an ls now and then). Both
// come from fixed seeds, so every run and every configuration sees the same files and calls.
import { dirname } from "node:path";
import { cap, int, pick, rng, SUFFIX, VERBS, WORDS } from "./synthetic-vocab.ts";

// ---- the repository ----

export interface RepoFile {
	path: string;
	lines: string[];
	/** Function names defined in this file. */
	names: string[];
}

export const FILES = [
	"src/orders/order-service.ts",
	"src/orders/order-store.ts",
	"src/cart/cart.ts",
	"src/payments/payment.ts",
	"src/payments/refund.ts",
	"src/shared/util.ts",
	"src/http/routes.ts",
	"test/orders.test.ts",
	"test/cart.test.ts",
	"docs/guide.md",
];
export const LINES_PER_FILE = 1300;
export const DIRS = [".", "src", "src/orders", "src/cart", "src/payments", "src/shared", "src/http", "test", "docs"];

/** Ten files of ~1,300 lines; every function has its own name, and most call an earlier one. */
export function makeRepo(): RepoFile[] {
	const r = rng(11);
	const all: string[] = [];
	let n = 0;
	return FILES.map((path) => {
		const lines: string[] = [];
		const names: string[] = [];
		const md = path.endsWith(".md");
		lines.push(md ? `# ${cap(pick(r, WORDS))} guide` : `// ${path}: generated for the hook-overhead benchmark.`);
		while (lines.length < LINES_PER_FILE) {
			const name = `${pick(r, VERBS)}${cap(pick(r, WORDS))}${pick(r, SUFFIX)}${n++}`;
			const callee = all.length ? all[int(r, Math.max(0, all.length - 400), all.length - 1)] : undefined;
			names.push(name);
			all.push(name);
			if (md) {
				lines.push(
					"",
					`## ${name}`,
					`Call \`${name}(${pick(r, WORDS)})\` when the ${pick(r, WORDS)} ${pick(r, WORDS)} is ready${callee ? `; it uses \`${callee}\`` : ""}.`,
				);
			} else {
				const arg = pick(r, WORDS);
				lines.push(
					`export function ${name}(${arg}: ${cap(pick(r, WORDS))}${pick(r, SUFFIX)}): number {`,
					`\tconst ${pick(r, WORDS)}${pick(r, SUFFIX)} = ${callee ? `${callee}(${arg})` : int(r, 1, 999)};`,
					`\treturn ${int(r, 1, 99)}; // ${pick(r, WORDS)} ${pick(r, WORDS)}`,
					"}",
				);
			}
		}
		return { path, lines, names };
	});
}

// ---- the agent's calls ----

export interface Call {
	name: string;
	args: Record<string, string | number | boolean>;
}

/**
 * Ordinary read-only work: in every 20 calls 7 chunked reads (each file read onwards from where
 * it was left, never the same lines twice), 9 greps for names defined in the repository (each
 * name once, so every answer is new), 3 finds (never the same glob and limit twice; greps
 * once those run out) and one ls of one of nine folders (these answers repeat, a few a window).
 * `count` calls in all (the bench makes 2,000).
 */
export function makeCalls(repo: RepoFile[], count: number): Call[] {
	const r = rng(23);
	const cursor = repo.map(() => 1);
	const names = repo.flatMap((f) => f.names.map((name) => ({ name, file: f.path })));
	for (let i = names.length - 1; i > 0; i--) {
		const j = Math.floor(r() * (i + 1));
		[names[i], names[j]] = [names[j], names[i]];
	}
	const globs: string[] = [];
	for (const g of ["*.ts", "*.md", "**/*.test.ts", "src/**/*.ts", "test/*", "docs/*", "*.json"]) globs.push(g);
	for (const w of WORDS) globs.push(`*${w}*`);
	for (const d of DIRS.slice(2)) globs.push(`${d}/*.ts`, `${d}/**/*`, `${d}/*-*`);
	const finds: Array<Call["args"]> = [];
	for (const limit of [undefined, 50, 100, 200, 20])
		for (const pattern of globs) finds.push(limit === undefined ? { pattern } : { pattern, limit });
	const calls: Call[] = [];
	let grep = 0;
	let find = 0;
	for (let i = 0; calls.length < count; i++) {
		const slot = i % 20;
		if (slot === 19) {
			calls.push({ name: "ls", args: { path: DIRS[Math.floor(i / 20) % DIRS.length] } });
		} else if (slot % 3 === 0) {
			// A chunked read of a file that still has lines left.
			const open = repo.map((_, k) => k).filter((k) => cursor[k] + 40 < repo[k].lines.length);
			const k = pick(r, open);
			const limit = int(r, 8, 20);
			calls.push({ name: "read", args: { path: repo[k].path, offset: cursor[k], limit } });
			cursor[k] += limit;
		} else if (slot % 5 === 1 && find < finds.length) {
			calls.push({ name: "find", args: finds[(find++ * 7) % finds.length] });
		} else {
			const { name, file } = names[grep++];
			const where = grep % 4;
			const args: Call["args"] =
				where === 0
					? { pattern: `\\b${name}\\b` }
					: where === 1
						? { pattern: `${name}(`, literal: true, path: dirname(file) }
						: where === 2
							? { pattern: name, glob: "*.ts" }
							: { pattern: `\\b${name}\\b`, path: file.split("/")[0], context: 1 };
			calls.push({ name: "grep", args });
		}
	}
	return calls;
}
