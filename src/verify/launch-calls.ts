// Launch calls of the parent's current step that have not started yet: the `subagent` calls
// (without an action) of the last assistant message that have no result and that the
// verifier has not seen start. While there are any, the orchestration is not at rest. Pure,
// over the parent session's branch.

type Entry = { type: string; message?: unknown };
type Block = { type?: unknown; id?: unknown; name?: unknown; arguments?: unknown };

function isLaunch(args: unknown): boolean {
	return typeof args === "object" && args !== null && (args as { action?: unknown }).action === undefined;
}

export function queuedLaunchCalls(branch: ReadonlyArray<Entry>, seen: ReadonlySet<string>): number {
	const answered = new Set<string>();
	for (let i = branch.length - 1; i >= 0; i--) {
		const entry = branch[i] as Entry;
		const m = entry.message as { role?: unknown; toolCallId?: unknown; content?: unknown } | undefined;
		if (entry.type !== "message" || !m) continue;
		if (m.role === "toolResult") {
			answered.add(String(m.toolCallId ?? ""));
			continue;
		}
		if (m.role !== "assistant") return 0; // a prompt: no step in progress
		const blocks = Array.isArray(m.content) ? (m.content as Block[]) : [];
		return blocks.filter(
			(b) =>
				b &&
				b.type === "toolCall" &&
				b.name === "subagent" &&
				isLaunch(b.arguments) &&
				!answered.has(String(b.id)) &&
				!seen.has(String(b.id)),
		).length;
	}
	return 0;
}
