// Markdown for the generated docs: tables laid out the way Biome formats them (so `biome ci` and
// the generator agree), and the marked blocks of a committed doc that a generator owns.

/** A table with every column padded to its widest cell, as Biome writes it. */
export function table(head: string[], rows: string[][]): string {
	const cells = [head, ...rows].map((row) => row.map((cell) => cell.replaceAll("|", "\\|")));
	const widths = head.map((_, i) => Math.max(3, ...cells.map((row) => [...(row[i] ?? "")].length)));
	const line = (row: string[]) => `| ${row.map((cell, i) => pad(cell, widths[i] ?? 3)).join(" | ")} |`;
	const rule = `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`;
	return [line(cells[0] ?? []), rule, ...cells.slice(1).map(line)].join("\n");
}

function pad(cell: string, width: number): string {
	return cell + " ".repeat(width - [...cell].length);
}

const start = (name: string) => `<!-- generated: ${name} (npm run docs writes this block; do not edit it by hand) -->`;
const end = (name: string) => `<!-- end of generated: ${name} -->`;

/** `doc` with the block named `name` replaced by `body`; throws when the doc has no such block. */
export function replaceBlock(doc: string, name: string, body: string): string {
	const from = doc.indexOf(start(name));
	const to = doc.indexOf(end(name));
	if (from < 0 || to < from) throw new Error(`the doc has no generated block "${name}": add the two marker lines`);
	return `${doc.slice(0, from)}${start(name)}\n\n${body.trim()}\n\n${doc.slice(to)}`;
}

export function emptyBlock(name: string): string {
	return `${start(name)}\n${end(name)}`;
}
