// Text helpers shared by every part that shows or sends text.

/** At most `max` characters, the last one an ellipsis when the text was cut. */
export function clip(text: string, max: number): string {
	return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

/** The first `max` characters and how many more there were. */
export function clipCounting(text: string, max: number): string {
	return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

/** The visible text of a message's content: a string, or its text blocks joined by newlines. */
export function contentText(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	let text = "";
	for (const block of content) {
		if (!block || typeof block !== "object") continue;
		const b = block as { type?: unknown; text?: unknown };
		if (b.type === "text" && typeof b.text === "string" && b.text.trim()) text += text ? `\n${b.text}` : b.text;
	}
	return text;
}

/** At most `max` characters; a cut text ends with a marker that says so. */
export function capText(text: string, max: number): string {
	if (text.length <= max) return text;
	const marker = `\n[… cut at ${max} characters]`;
	return max > marker.length ? `${text.slice(0, max - marker.length)}${marker}` : text.slice(0, Math.max(0, max));
}

/**
 * One line: every kind of line break (\r, \n, U+2028/2029, U+0085) and other control
 * characters become spaces, runs of spaces one. For text from a model that must not be able
 * to start a line of its own in a message (e.g. a forged "User:" line).
 */
export function oneLine(text: string): string {
	return text
		.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ")
		.replace(/ {2,}/g, " ")
		.trim();
}

/** Every line prefixed with "> ", so quoted text cannot pass for the message's own lines. */
export function quoteLines(text: string): string {
	return text
		.split(/\r\n|[\n\r\u2028\u2029\u0085]/)
		.map((line) => `> ${line}`)
		.join("\n");
}

/**
 * At most `max` characters: the first `head` (by default up to half the room) and as much of
 * the end as fits, with a line saying how many characters of the middle were left out. For
 * a run or a command's output, whose end (the verdict, the last claim) matters as much as its start.
 */
export function headAndTail(text: string, max: number, head = Math.floor(max / 2)): string {
	if (text.length <= max) return text;
	const marker = (n: number) => `\n[… ${thousands(n)} characters left out …]\n`;
	const room = Math.max(0, max - marker(text.length).length);
	let keepHead = Math.max(0, Math.min(head, room));
	// Cuts fall on line ends where one is near, so no line is shown in part.
	const headEnd = text.lastIndexOf("\n", keepHead);
	if (headEnd > keepHead / 2) keepHead = headEnd;
	let tailStart = text.length - (room - keepHead);
	const lineStart = text.indexOf("\n", tailStart - 1);
	if (lineStart >= 0 && lineStart + 1 - tailStart < (room - keepHead) / 2) tailStart = lineStart + 1;
	if (tailStart > text.length) tailStart = text.length;
	const omitted = tailStart - keepHead;
	return `${text.slice(0, keepHead)}${marker(omitted)}${text.slice(tailStart)}`.slice(0, max);
}

/** 12345 as "12,345" (toLocaleString builds a number formatter on every call: slow in a loop). */
export function thousands(n: number): string {
	return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}
