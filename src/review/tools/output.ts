// Bounds on what one tool result may hold, so a careless call cannot flood the reviewer's
// context. Cuts fall on line ends and always say how to ask for less.

/** Joins `lines` up to `budget` characters; `shown` is how many lines fitted. */
export function fitLines(lines: readonly string[], budget: number): { text: string; shown: number } {
	let used = 0;
	let shown = 0;
	for (const line of lines) {
		const cost = line.length + (shown > 0 ? 1 : 0);
		if (used + cost > budget) break;
		used += cost;
		shown++;
	}
	return { text: lines.slice(0, shown).join("\n"), shown };
}

/** Cuts `text` to `max` characters at a line end, adding a note built from what was left out. */
export function capText(text: string, max: number, note: (shownChars: number, totalChars: number) => string): string {
	if (text.length <= max) return text;
	const noteBudget = 400;
	const room = Math.max(0, max - noteBudget);
	let cut = text.lastIndexOf("\n", room);
	if (cut < room / 2) cut = room; // one huge line: cut inside it
	return `${text.slice(0, cut)}\n${note(cut, text.length)}`;
}

/** One line for a listing, cut to `max` characters. */
export function clipLine(line: string, max: number): string {
	return line.length > max ? `${line.slice(0, max)}… [${line.length - max} more characters]` : line;
}

export function plural(n: number, word: string, words = `${word}s`): string {
	return `${n} ${n === 1 ? word : words}`;
}
