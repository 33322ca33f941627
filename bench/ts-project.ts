// The generated TypeScript project the LSP benchmarks check: FILES files, each importing the
// previous one and using its types (or, the stress shape, extending its interfaces), in a git
// repository with one commit. Shared by lsp-warm and settle-cost.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { commitAll } from "./git-repo.ts";

export const FILES = 300;
export const INTERFACES = 30;
export const LINKED = 10; // interfaces 0..9 refer to the previous file's interface of the same number

const pad = (n: number) => String(n).padStart(3, "0");
export const rel = (n: number) => `src/f${pad(n)}.ts`;

/**
 * How file n uses file n-1: `imports` gives its interfaces a field of the previous file's type
 * (the shape the target is set for); `inheritance` makes them extend it (the stress variant).
 */
export type Shape = "imports" | "inheritance";

/**
 * One generated file. `marker` is the value an edit changes; `error` adds an assignment of a
 * string to a number field, at the end or before the rest (so that the error moves).
 */
export function source(shape: Shape, n: number, marker = 0, error: "none" | "last" | "first" = "none"): string {
	const N = pad(n);
	const P = pad(n - 1);
	const out: string[] = [`// Generated file ${n} of ${FILES}.`];
	if (n > 0) out.push(`import * as prev from "./f${P}";`);
	const broken = `export const broken${N}: T${N}_15 = { id: "not a number", label: "broken", tags: [], kind: "k15" };`;
	if (error === "first") out.push(broken);
	for (let k = 0; k < INTERFACES; k++) {
		if (k < LINKED) {
			const base = n > 0 && shape === "inheritance" ? ` extends prev.T${P}_${k}` : "";
			const parent = n > 0 && shape === "imports" ? `\n\tparent?: prev.T${P}_${k};` : "";
			out.push(
				`export interface T${N}_${k}${base} {\n\ta${N}_${k}: number;\n\tb${N}_${k}: string;\n\tc${N}_${k}?: T${N}_${(k + 1) % LINKED};${parent}\n}`,
			);
		} else {
			const next = k + 1 < INTERFACES ? `T${N}_${k + 1}` : `T${N}_${LINKED}`;
			out.push(
				`export interface T${N}_${k} {\n\tid: number;\n\tlabel: string;\n\ttags: readonly string[];\n\tkind: "k${k}";\n\tnext?: ${next};\n}`,
			);
		}
	}
	for (let k = 0; k < LINKED; k++) {
		// With inheritance the spread is checked against the whole inherited shape (2 fields per file above).
		const own = `a${N}_${k}: base.a${P}_${k} + 1, b${N}_${k}: String(base.b${P}_${k})`;
		if (n > 0)
			out.push(
				`export function grow${N}_${k}(base: prev.T${P}_${k}): T${N}_${k} {\n\treturn ${shape === "inheritance" ? `{ ...base, ${own} }` : `{ ${own}, parent: base }`};\n}`,
			);
		else out.push(`export function grow${N}_${k}(): T${N}_${k} {\n\treturn { a${N}_${k}: 0, b${N}_${k}: "" };\n}`);
	}
	for (let k = LINKED; k < INTERFACES; k++) {
		const next = k + 1 < INTERFACES ? `, next: { id: ${k + 1}, label: "n", tags: [], kind: "k${k + 1}" }` : "";
		out.push(
			`export const v${N}_${k}: T${N}_${k} = { id: ${k}, label: "v${N}_${k}", tags: ["a", "b"], kind: "k${k}"${next} };`,
		);
	}
	out.push(
		`export const labels${N}: string[] = [${Array.from({ length: INTERFACES - LINKED }, (_, i) => `v${N}_${i + LINKED}.label`).join(", ")}];`,
	);
	out.push(`export const total${N}: number = ${n > 0 ? `prev.total${P} + ` : ""}labels${N}.length;`);
	out.push(`export const marker${N}: number = ${marker};`);
	if (error === "last") out.push(broken);
	return `${out.join("\n")}\n`;
}

export function generate(repo: string, shape: Shape): void {
	mkdirSync(join(repo, "src"), { recursive: true });
	writeFileSync(
		join(repo, "tsconfig.json"),
		JSON.stringify(
			{
				compilerOptions: {
					strict: true,
					noEmit: true,
					target: "ES2022",
					module: "ESNext",
					moduleResolution: "bundler",
					skipLibCheck: true,
				},
				include: ["src"],
			},
			null,
			2,
		),
	);
	for (let n = 0; n < FILES; n++) writeFileSync(join(repo, rel(n)), source(shape, n));
	commitAll(repo, "generated");
}
