// `/subagents-watchdog help [topic]`: the matching section of the docs that ship with the package
// (docs/*.md), so the help Pi shows is the documentation itself. Finding the section is pure.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_DIR } from "../util/index.ts";

const DOCS_DIR = join(PACKAGE_DIR, "docs");
const MAX_LINES = 160;

/** A topic word → the doc and the heading it means (no heading: the doc's own list of sections). */
const TOPICS: Record<string, [file: string, heading?: string]> = {
	install: ["install.md"],
	settings: ["settings.md"],
	commands: ["commands.md", "Commands"],
	status: ["commands.md", "What you see"],
	subagent: ["subagent-tool.md"],
	tool: ["subagent-tool.md"],
	children: ["children.md"],
	launch: ["children.md", "Launching child agents"],
	rules: ["children.md", "Launch rules"],
	verification: ["children.md", "Stopped-subtree verification"],
	agents: ["children.md", "Agent files"],
	permissions: ["children.md", "Child tool permissions"],
	review: ["review.md"],
	lsp: ["review.md", "The LSP pre-pass"],
	evidence: ["review.md", "Evidence"],
	loops: ["review.md", "Loops"],
	cadence: ["review.md", "Cadence reviews"],
	clarification: ["review.md", "Clarification"],
	rotation: ["review.md", "Rotation"],
	history: ["history-and-scan.md", "History"],
	scan: ["history-and-scan.md", "`pi-watchdog scan`"],
	security: ["security.md"],
	"pi-subagents": ["coming-from-pi-subagents.md"],
	fleet: ["fleet.md"],
};

export const HELP_TOPICS = Object.keys(TOPICS);

interface Section {
	level: number;
	heading: string;
	lines: string[];
}

/** The doc's sections by Markdown heading, leaving code blocks alone (a `#` there is not a heading). */
export function sections(doc: string): Section[] {
	const out: Section[] = [];
	let fenced = false;
	for (const line of doc.split("\n")) {
		if (line.startsWith("```")) fenced = !fenced;
		const heading = fenced ? null : /^(#{1,3}) (.+)$/.exec(line);
		if (heading) out.push({ level: heading[1]?.length ?? 1, heading: heading[2] ?? "", lines: [line] });
		else out.at(-1)?.lines.push(line);
	}
	return out;
}

/** A section with its subsections, bounded; `file` names where the rest is. */
function show(all: Section[], index: number, file: string): string {
	const first = all[index];
	if (!first) return "";
	const lines = [...first.lines];
	for (const next of all.slice(index + 1)) {
		if (next.level <= first.level) break;
		lines.push(...next.lines);
	}
	const text = lines.join("\n").trim().split("\n");
	if (text.length <= MAX_LINES) return `${text.join("\n")}\n\n(docs/${file})`;
	return `${text.slice(0, MAX_LINES).join("\n")}\n… the rest of this section is in docs/${file}`;
}

/** The help for `topic` from `docs` (file name → text); pure. */
export function helpFor(topic: string, docs: ReadonlyMap<string, string>): string {
	const wanted = topic.trim().toLowerCase();
	const known = TOPICS[wanted];
	if (known) {
		const [file, heading] = known;
		const all = sections(docs.get(file) ?? "");
		if (!heading) return outline(all, file);
		const at = all.findIndex((s) => s.heading.startsWith(heading));
		if (at >= 0) return show(all, at, file);
	}
	const row = settingRow(wanted, docs.get("settings.md") ?? "");
	if (row) return row;
	for (const [file, doc] of docs) {
		const all = sections(doc);
		const at = all.findIndex((s) => s.level > 1 && s.heading.toLowerCase().includes(wanted));
		if (at >= 0) return show(all, at, file);
	}
	return `No help on "${topic.trim()}". Topics: ${HELP_TOPICS.join(", ")}; or a setting's key (e.g. lsp.idleMs).`;
}

/** A doc's title, first paragraph and its sections, each with the topic that shows it. */
function outline(all: Section[], file: string): string {
	const [title, ...rest] = all;
	const intro = (title?.lines ?? []).join("\n").trim();
	const parts = rest.filter((s) => s.level === 2).map((s) => `  ${s.heading}`);
	if (!parts.length) return show(all, 0, file);
	const topics = HELP_TOPICS.filter((t) => TOPICS[t]?.[0] === file && TOPICS[t]?.[1]).join(", ");
	return [
		intro,
		"",
		"Sections:",
		...parts,
		"",
		`help <topic> shows one${topics ? ` (${topics}, or words of a heading)` : " (words of a heading)"}.`,
		`(docs/${file})`,
	].join("\n");
}

/** The settings reference's row for a key, as lines. */
function settingRow(key: string, settings: string): string | null {
	const row = settings.split("\n").find((line) => line.toLowerCase().startsWith(`| \`${key}\``));
	if (!row) return null;
	const [name, type, value, meaning, who] = row
		.slice(1, -1)
		.split(/(?<!\\)\|/)
		.map((cell) => cell.trim());
	return [
		`${name}: ${meaning}`,
		`  type: ${type}`,
		`  default: ${value || "(none)"}`,
		`  who may set it: ${who}`,
		"(docs/settings.md, Settings reference)",
	].join("\n");
}

/** The docs that ship with the package; a missing folder gives none (help then says so). */
export function packageDocs(dir = DOCS_DIR): Map<string, string> {
	const docs = new Map<string, string>();
	try {
		for (const name of readdirSync(dir).sort())
			if (name.endsWith(".md")) docs.set(name, readFileSync(join(dir, name), "utf8"));
	} catch {
		// No docs folder (a stripped install): helpFor names the topics anyway.
	}
	return docs;
}

/** `help` without a topic: the commands, then the topics. */
export function helpIndex(usage: string): string {
	const topics = HELP_TOPICS.join(", ");
	return `${usage}\n\nHelp on a topic: /subagents-watchdog help <topic>, one of ${topics}; or a setting's key.`;
}
