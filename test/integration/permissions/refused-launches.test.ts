// A launch whose permission rules are wrong (a bash rule, a bad value or type, a misspelt key,
// invalid JSON, in the global config or an agent's frontmatter) is refused in a real session,
// naming the file and the problem, and no child starts.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { startSession } from "../../support/pi-session.ts";
import { text, toolUse } from "../review/review-helpers.ts";
import { writeRules } from "./permissions-helpers.ts";

describe("refused launches", () => {
	const refusals: Array<{ name: string; rules?: unknown; agent?: string; says: RegExp }> = [
		{
			name: "a bash rule in the global config",
			rules: { bash: "ask" },
			says: /"bash": bash cannot be gated by a tool rule: bash policy belongs to a command-level guard/,
		},
		{
			name: "a bash rule in frontmatter",
			agent: "permission:\n  bash: deny\n",
			says: /agents\/gated\.md: the permission rules of agent "gated": "bash": bash cannot be gated/,
		},
		{
			name: "a value other than allow, ask or deny",
			rules: { write: "maybe" },
			says: /config\.json: permissions\.rules\.write: must be allow, ask or deny/,
		},
		{
			name: "rules of the wrong type",
			rules: '{ "permissions": { "rules": ["write"] } }',
			says: /config\.json: permissions\.rules: must be an object of tool name or glob/,
		},
		{
			name: "a misspelt key",
			rules: '{ "permissions": { "rule": { "write": "deny" } } }',
			says: /config\.json: permissions: .*rule/,
		},
		{ name: "invalid JSON", rules: '{ "permissions": ', says: /config\.json: invalid JSON at line 1/ },
	];
	for (const r of refusals) {
		it(`refuses the launch on ${r.name}, naming the file and the problem, and starts nothing`, async () => {
			const t = await startSession();
			if (r.rules !== undefined) writeRules(t.agentDir, typeof r.rules === "string" ? r.rules : r.rules);
			mkdirSync(join(t.agentDir, "agents"), { recursive: true });
			writeFileSync(
				join(t.agentDir, "agents", "gated.md"),
				`---\nname: gated\ndescription: a gated agent\ntools: read\n${r.agent ?? ""}---\nYou read.\n`,
			);
			t.main.setResponses([
				toolUse("subagent", { agent: "gated", task: "read" }),
				fauxAssistantMessage("I will tell the user."),
			]);
			try {
				await t.session.prompt("go");
				await t.session.waitForIdle();
				const result = t.session.messages.find((m: any) => m.role === "toolResult" && m.toolName === "subagent") as any;
				expect(result.isError).toBe(true);
				expect(text(result.content)).toMatch(r.says);
				expect(text(result.content)).toMatch(/[Nn]othing was launched/);
				// the child never ran: the main model answered the launch and then the parent, nothing else
				expect(t.main.state.callCount).toBe(2);
			} finally {
				await t.dispose();
			}
		});
	}
});
