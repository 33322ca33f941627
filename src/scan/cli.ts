// `pi-watchdog scan [--json] FILE...`: the deterministic detectors over recorded sessions.
// Exit 0 whatever they find; 2 when a file cannot be read or is not a session.
import { reportText, scanSession } from "./scan-session.ts";

const USAGE = `usage: pi-watchdog scan [--json] FILE...

Runs the watchdog's deterministic detectors over recorded agent sessions: Pi session files,
pi-subagents transcripts (JSONL), Claude Code project logs (JSONL) and Claude Code Markdown
exports; the format is recognised from the content. Prints a report per file, or with --json
one JSON object per line per file.`;

export async function main(argv: string[], out: (s: string) => void = (s) => process.stdout.write(s), err: (s: string) => void = (s) => process.stderr.write(s)): Promise<number> {
	const [command, ...rest] = argv;
	if (command === "--help" || command === "-h" || command === "help") {
		out(`${USAGE}\n`);
		return 0;
	}
	if (command !== "scan") {
		err(`${command ? `unknown command "${command}"` : "no command given"}\n${USAGE}\n`);
		return 2;
	}
	const json = rest.includes("--json");
	const unknownFlag = rest.find((a) => a.startsWith("-") && a !== "--json");
	if (unknownFlag) {
		err(`unknown option ${unknownFlag}\n${USAGE}\n`);
		return 2;
	}
	const files = rest.filter((a) => !a.startsWith("-"));
	if (!files.length) {
		err(`scan needs at least one FILE\n${USAGE}\n`);
		return 2;
	}
	let failed = false;
	for (const file of files) {
		try {
			const report = await scanSession(file);
			out(json ? `${JSON.stringify(report)}\n` : `${reportText(report)}\n\n`);
		} catch (error) {
			failed = true;
			err(`pi-watchdog scan: ${error instanceof Error ? error.message : String(error)}\n`);
		}
	}
	return failed ? 2 : 0;
}
