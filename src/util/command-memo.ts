// What the detectors work out from a shell command, kept per command: sessions run the same commands again and
// again (the tests, git status). Bounded in entries and in what one entry may hold.
/** Commands remembered at once; past it the memo starts over. */
const ENTRIES = 512;
/** A longer command (a heredoc writing a file) is rarely run twice and is worked out each time. */
const MAX_COMMAND_CHARS = 1_000;

/** `compute`, remembered per command for commands of up to 1,000 characters, 512 at a time. */
export function memoPerCommand<V>(compute: (command: string) => V): (command: string) => V {
	const memo = new Map<string, V>();
	return (command) => {
		const known = memo.get(command);
		if (known !== undefined) return known;
		const value = compute(command);
		if (command.length > MAX_COMMAND_CHARS) return value;
		if (memo.size >= ENTRIES) memo.clear();
		memo.set(command, value);
		return value;
	};
}
