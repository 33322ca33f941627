// Claude Code sessions exported as Markdown: sections of JSON blocks or plain typed text.
import { describe, expect, it } from "vitest";
import { assistant, reasoningOnly, call, prompt, readAll, writeText } from "../../support/session-files.ts";

const HEADER = [
	"# Claude Session Export",
	"",
	"## Session Information",
	"",
	"- **Session ID**: `0f1e2d3c`",
	"- **Export Mode**: Full Conversation",
	"- **Project Path**: `/home/me/proj`",
	"",
	"---",
	"",
	"## Conversation",
	"",
].join("\n");

let minute = 10;
const section = (role: "User" | "Assistant", body: unknown) =>
	`### ${role}\n> 11/30/2025, 11:${minute++}:00 PM\n\n${typeof body === "string" ? body : JSON.stringify(body, null, 2)}\n\n---\n\n`;
const use = (id: string, name: string, input: Record<string, unknown>) =>
	section("Assistant", [{ type: "tool_use", id, name, input }]);
const answer = (id: string, content: unknown, isError?: boolean) =>
	section("User", [
		{ tool_use_id: id, type: "tool_result", content, ...(isError === undefined ? {} : { is_error: isError }) },
	]);

describe("Claude Code Markdown exports", () => {
	it("reads typed prompts, assistant text and paired calls section by section", async () => {
		const path = writeText(
			"export.md",
			HEADER +
				section("User", "Index the books folder\n\n### User\nis only a heading I typed") +
				section("Assistant", [{ type: "thinking", thinking: "hidden", signature: "s" }]) +
				section("Assistant", [{ type: "text", text: "Reading the list in two chunks." }]) +
				use("toolu_1", "Read", { file_path: "/home/me/proj/books.md", offset: 1, limit: 500 }) +
				answer("toolu_1", "     1→# Books") +
				use("toolu_2", "Read", { file_path: "/home/me/proj/books.md", offset: 501, limit: 500 }) +
				answer("toolu_2", [{ type: "text", text: "   501→end" }], false) +
				use("toolu_3", "Bash", { command: "python ingest.py", description: "Ingest" }) +
				answer("toolu_3", "Exit code 2\nNo module named qdrant", true) +
				use("toolu_4", "Edit", {
					file_path: "/home/me/proj/ingest.py",
					old_string: "import qdrant",
					new_string: "import qdrant_client",
				}) +
				answer("toolu_4", "The file /home/me/proj/ingest.py has been updated.") +
				use("toolu_5", "Bash", { command: "python ingest.py", run_in_background: true }) +
				answer("toolu_5", "Command running in background with ID: ad2a83") +
				use("toolu_6", "BashOutput", { bash_id: "ad2a83" }) +
				answer("toolu_6", "<status>running</status>\n\n[30/50 books]") +
				section(
					"User",
					"<command-message>handoff is running…</command-message>\n<command-name>/handoff</command-name>",
				) +
				section("User", [{ type: "text", text: "# Session Handoff\n\nSummarise the session." }]) +
				section("User", [{ type: "text", text: "[Request interrupted by user]" }]) +
				section(
					"User",
					"This session is being continued from a previous conversation that ran out of context. The conversation is summarized below: …",
				) +
				section("User", [{ type: "text", text: "use a team of agents" }]) +
				section("User", "1") +
				section("Assistant", [{ type: "text", text: "Ingestion complete: 50 books." }]),
		);
		const { session, events } = await readAll(path);
		expect(session.format).toBe("claude-export");
		expect(events).toStrictEqual([
			prompt("Index the books folder\n\n### User\nis only a heading I typed"),
			reasoningOnly,
			assistant("Reading the list in two chunks."),
			call({
				index: 0,
				name: "Read",
				kind: "read",
				args: { file_path: "/home/me/proj/books.md", offset: 1, limit: 500 },
				path: "/home/me/proj/books.md",
				offset: 1,
				limit: 500,
				result: "     1→# Books",
			}),
			call({
				index: 1,
				name: "Read",
				kind: "read",
				args: { file_path: "/home/me/proj/books.md", offset: 501, limit: 500 },
				path: "/home/me/proj/books.md",
				offset: 501,
				limit: 500,
				result: "   501→end",
			}),
			call({
				index: 2,
				name: "Bash",
				kind: "bash",
				args: { command: "python ingest.py", description: "Ingest" },
				command: "python ingest.py",
				result: "Exit code 2\nNo module named qdrant",
				isError: true,
			}),
			call({
				index: 3,
				name: "Edit",
				kind: "edit",
				args: { file_path: "/home/me/proj/ingest.py", old_string: "import qdrant", new_string: "import qdrant_client" },
				path: "/home/me/proj/ingest.py",
				result: "The file /home/me/proj/ingest.py has been updated.",
				changed: true,
			}),
			call({
				index: 4,
				name: "Bash",
				kind: "bash",
				args: { command: "python ingest.py", run_in_background: true },
				command: "python ingest.py",
				result: "Command running in background with ID: ad2a83",
			}),
			call({
				index: 5,
				name: "BashOutput",
				kind: "poll",
				args: { bash_id: "ad2a83" },
				result: "<status>running</status>\n\n[30/50 books]",
			}),
			prompt("use a team of agents"),
			prompt("1"),
			assistant("Ingestion complete: 50 books."),
		]);
		expect(session.stats).toMatchObject({ lines: 22, malformed: 0, calls: 6, unanswered: 0 });
	});

	it("skips a section whose JSON is broken, and emits calls without results where they were abandoned", async () => {
		const path = writeText(
			"export.md",
			HEADER +
				section("User", "Find the assessments") +
				use("toolu_1", "mcp__annas__search", { term: "DASS-21" }) +
				use("toolu_2", "mcp__annas__download", { hash: "abc" }) +
				answer("toolu_1", "1 result") +
				'### Assistant\n> 11/30/2025, 11:59:00 PM\n\n[\n  {\n    "type": "text",\n    "text": "cut off\n\n---\n\n' +
				use("toolu_3", "Glob", { pattern: "assessments/*.pdf" }) +
				answer("toolu_3", "assessments/dass21.pdf"),
		);
		const { session, events } = await readAll(path);
		expect(events).toStrictEqual([
			prompt("Find the assessments"),
			call({ index: 0, name: "mcp__annas__search", kind: "search", args: { term: "DASS-21" }, result: "1 result" }),
			call({ index: 1, name: "mcp__annas__download", kind: "other", args: { hash: "abc" }, result: "" }),
			call({
				index: 2,
				name: "Glob",
				kind: "search",
				args: { pattern: "assessments/*.pdf" },
				pattern: "assessments/*.pdf",
				result: "assessments/dass21.pdf",
			}),
		]);
		expect(session.stats).toMatchObject({ malformed: 1, unanswered: 1 });
	});
});
