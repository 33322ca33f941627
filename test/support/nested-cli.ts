// Children that launch children through the real CLI: agent files with the `subagent` tool,
// and a scripted model where a child's task says what it does ("LAUNCH {json}" makes that
// launch and reports what it saw; "WRITE f" writes f; "CLAIM" claims tests pass, having run
// nothing; "WRITE-AND-HANG f" writes f, then its model never answers again; "CONFIGURE {json}"
// asks for that watchdog.configure and reports what it was told).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ChatRequest, type Reply, subagentCallScript, textOf } from "./openai-server.ts";
import type { CliSession } from "./pi-cli.ts";
import { firstUser } from "./subagent-cli.ts";

/** Writes an agent file into the user's agent folder. */
export function writeAgent(
	cli: Pick<CliSession, "agentDir">,
	name: string,
	front: Record<string, string> = {},
	tools = "read, bash, write, edit, subagent",
): void {
	mkdirSync(join(cli.agentDir, "agents"), { recursive: true });
	const lines = Object.entries({ name, description: `${name} for the nesting tests`, tools, ...front }).map(
		([k, v]) => `${k}: ${v}`,
	);
	writeFileSync(
		join(cli.agentDir, "agents", `${name}.md`),
		`---\n${lines.join("\n")}\n---\nYou do what the task says.\n`,
	);
}

/** A child task that makes one launch. */
export const launchTask = (args: Record<string, unknown>) => `LAUNCH ${JSON.stringify(args)}`;

const lastTool = (r: ChatRequest) =>
	r.messages.at(-1)?.role === "tool" ? textOf(r.messages.at(-1)?.content) : undefined;

export function nestedScript(request: ChatRequest): Reply {
	const first = firstUser(request);
	if (first.startsWith("call ")) return subagentCallScript(request);
	if (request.tools?.some((t) => t.function.name === "watchdog_warn")) return { text: "Nothing to report." };
	const seen = lastTool(request);
	const tools = request.messages.filter((m) => m.role === "tool").length;
	const launch = /^LAUNCH (\{.*\})$/s.exec(first);
	if (launch) {
		if (seen !== undefined) return { text: `SAW: ${seen}` };
		return { toolCalls: [{ name: "subagent", args: JSON.parse(launch[1]) }] };
	}
	const configure = /^CONFIGURE (\{.*\})$/s.exec(first);
	if (configure) {
		if (seen !== undefined) return { text: `TOLD: ${seen}` };
		return { toolCalls: [{ name: "subagent", args: { action: "watchdog.configure", ...JSON.parse(configure[1]) } }] };
	}
	const hang = /^WRITE-AND-HANG (\S+)/.exec(first);
	if (hang)
		return tools
			? { hang: true }
			: { toolCalls: [{ name: "write", args: { path: hang[1], content: `written by ${hang[1]}\n` } }] };
	const write = /^WRITE (\S+)/.exec(first);
	if (write)
		return tools
			? { text: `Wrote ${write[1]}.` }
			: { toolCalls: [{ name: "write", args: { path: write[1], content: `${write[1]}\n` } }] };
	if (first.startsWith("CLAIM")) {
		if (tools) return { text: "Wrote claim.txt. All tests pass." };
		return { toolCalls: [{ name: "write", args: { path: "claim.txt", content: "claimed\n" } }] };
	}
	return { text: "plain answer" };
}

/** Requests the model got from children whose task starts with `prefix`. */
export const requestsFor = (c: CliSession, prefix: string) =>
	c.server.requests.filter((r) => firstUser(r).startsWith(prefix));

/** Every line of the history log, oldest first. */
export const historyLines = (c: Pick<CliSession, "agentDir">) =>
	readFileSync(join(c.agentDir, "watchdog", "history.jsonl"), "utf8")
		.trim()
		.split("\n")
		.map((l) => JSON.parse(l));
