// Driving the `subagent` tool through the real CLI: a "call {json}" prompt, the tool's own
// result text, run ids and run folders, and bounded polling.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type ChatRequest, textOf } from "./openai-server.ts";
import type { CliSession } from "./pi-cli.ts";

export const firstUser = (r: ChatRequest) => textOf(r.messages.find((m) => m.role === "user")?.content);

export const runIdOf = (text: string) => /Run (\d{8}-\d{6}-[0-9a-f]{6})/.exec(text)?.[1] as string;

export const runFolder = (cli: CliSession, id: string) => join(cli.agentDir, "watchdog", "runs", id);

export const statusFile = (cli: CliSession, id: string) =>
	JSON.parse(readFileSync(join(runFolder(cli, id), "status.json"), "utf8"));

export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		if (await check()) return;
		await new Promise((r) => setTimeout(r, 100));
	}
	throw new Error(`timed out waiting for ${what}`);
}

/** Makes the parent call `subagent` with `args`; returns the text of that tool call's result. */
export async function callSubagent(cli: CliSession, args: Record<string, unknown>): Promise<string> {
	await cli.run(`call ${JSON.stringify(args)}`, 60_000);
	// the tool's own result (a completion message may arrive during the call and get its own answer)
	const entries = (await cli.client.getEntries()).entries as any[];
	const result = entries
		.filter((e) => e.type === "message" && e.message.role === "toolResult" && e.message.toolName === "subagent")
		.at(-1);
	return textOf(result?.message.content);
}
