// The change as the reviewer reads it first: git's diff of the run's changed paths, then each
// new file in full as an all-added diff, fitted to a character budget. When it does not fit,
// every file keeps a fair share (small ones whole, large ones cut at a line end with a note on
// how to see the rest), so one huge file cannot hide the others. Pure.
import { thousands } from "../util/index.ts";
import type { RecordedChange } from "./change-capture.ts";

/** Below this share a file's diff says too little; files past it are listed instead. */
const MIN_SHARE = 400;

interface Block {
	path: string;
	text: string;
	/** What to call to see it whole. */
	more: string;
}

/** The paths whose diff or new content the recorded change holds. */
export function changePaths(change: RecordedChange | undefined): Set<string> {
	if (!change || "absent" in change) return new Set();
	return new Set(blocksOf(change).map((b) => b.path));
}

/** The change as text of at most `room` characters. */
export function renderChange(change: RecordedChange, room: number): string {
	if ("absent" in change) return `(no diff: ${change.absent})`;
	const blocks = blocksOf(change);
	const notes = [
		...change.added
			.filter((f) => f.text === undefined)
			.map((f) => `new file ${f.path}: content not shown (${f.skipped ?? "not read"})`),
		...(change.leftOut ? [`[${change.leftOut} more changed path(s) not diffed here; watchdog_diff shows them]`] : []),
	];
	if (!blocks.length && !notes.length) return "(git shows no difference in these paths since the session started)";
	return fit(blocks, notes, room);
}

function blocksOf(change: Extract<RecordedChange, { base: string }>): Block[] {
	const tracked = splitDiff(change.diff).map((text) => {
		const path = diffPath(text);
		return { path, text, more: `watchdog_diff with "path": ${JSON.stringify(path)} shows it whole` };
	});
	const added = change.added.flatMap((f) =>
		f.text === undefined
			? []
			: [
					{
						path: f.path,
						text: newFileDiff(f.path, f.text, f.truncated === true),
						more: `read ${JSON.stringify(f.path)} shows the rest`,
					},
				],
	);
	return [...tracked, ...added];
}

/** git's patch output, one block per file. */
function splitDiff(diff: string): string[] {
	const text = diff.replace(/\n$/, "");
	if (!text.trim()) return [];
	return text.split(/\n(?=diff --git )/);
}

/** The file a block is about: its new name, or its old one when it was deleted. */
function diffPath(block: string): string {
	const plus = /^\+\+\+ b\/(.+)$/m.exec(block);
	if (plus) return plus[1];
	const minus = /^--- a\/(.+)$/m.exec(block);
	if (minus) return minus[1];
	const renamed = /^rename to (.+)$/m.exec(block);
	if (renamed) return renamed[1];
	return /^diff --git a\/(.+?) b\//.exec(block)?.[1] ?? "?";
}

/** A new file as a diff that adds every line (git's shape, so it reads like the rest). */
function newFileDiff(path: string, text: string, truncated: boolean): string {
	const lines = text.split("\n");
	if (lines.at(-1) === "") lines.pop();
	const head = [`diff --git a/${path} b/${path}`, "new file (untracked)", "--- /dev/null", `+++ b/${path}`];
	if (!lines.length) return [...head.slice(0, 2), "(empty)"].join("\n");
	const body = lines.map((l) => `+${l}`);
	const end = truncated
		? ["[… the file goes on past what was read]"]
		: text.endsWith("\n")
			? []
			: ["\\ No newline at end of file"];
	return [...head, `@@ -0,0 +1,${lines.length} @@`, ...body, ...end].join("\n");
}

function fit(blocks: Block[], notes: string[], room: number): string {
	const all = [...blocks.map((b) => b.text), ...notes].join("\n");
	if (all.length <= room) return all;
	let shown = blocks;
	let listed: Block[] = [];
	// Too many files for each to say something: the last ones are named instead.
	while (shown.length > 1 && room / shown.length < MIN_SHARE) {
		listed = [shown[shown.length - 1], ...listed];
		shown = shown.slice(0, -1);
	}
	const tail = [...notes];
	if (listed.length)
		tail.push(
			`[${listed.length} more file(s) not shown for room: ${listed.map((b) => b.path).join(", ")}; ` +
				`watchdog_diff with "path" shows each]`,
		);
	const tailText = tail.join("\n");
	let left = Math.max(0, room - tailText.length - shown.length - 1);
	const shares = new Map<Block, number>();
	const bySize = [...shown].sort((a, b) => a.text.length - b.text.length);
	bySize.forEach((block, i) => {
		const share = Math.floor(left / (bySize.length - i));
		const give = Math.min(block.text.length, share);
		shares.set(block, give);
		left -= give;
	});
	const parts = shown.map((b) => cutBlock(b, shares.get(b) ?? 0));
	return [...parts, ...(tailText ? [tailText] : [])].join("\n").slice(0, room);
}

/** A block in `max` characters, cut at a line end with a note on what was left out. */
function cutBlock(block: Block, max: number): string {
	if (block.text.length <= max) return block.text;
	const note = (left: number) => `[… ${thousands(left)} more characters of ${block.path}; ${block.more}]`;
	const room = Math.max(0, max - note(block.text.length).length - 1);
	let cut = block.text.lastIndexOf("\n", room);
	if (cut < room / 2) cut = room;
	return `${block.text.slice(0, cut)}\n${note(block.text.length - cut)}`;
}
