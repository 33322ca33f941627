// Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`): one `{timestamp, type,
// payload}` per line. `response_item` payloads carry the conversation: `message` (role, content
// blocks `input_text`/`output_text`), `function_call` (name, arguments as a JSON string,
// call_id) answered by `function_call_output`, `custom_tool_call` (apply_patch) answered by
// `custom_tool_call_output`, `local_shell_call`; `compacted` lines are compactions. The
// `event_msg` lines repeat the same conversation for the UI and are skipped.
import type { SessionEvent } from "../transcript/index.ts";
import { CallPairer, resultText, type ScanStats } from "../transcript/index.ts";
import { asObject, parseJsonLine, type SessionParser } from "./session-parser.ts";

/** Text the harness puts in the user's place: instructions and environment, not a prompt. */
const NOT_PROMPT =
	/^\s*(?:<environment_context>|<user_instructions>|<INSTRUCTIONS>|# AGENTS\.md instructions|<turn_aborted>)/;

function blocksText(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	const parts: string[] = [];
	for (const block of content) {
		const text = asObject(block)?.text;
		if (typeof text === "string" && text.trim()) parts.push(text);
	}
	return parts.join("\n");
}

/** A shell call's command as one line: `["bash", "-lc", "npm test"]` is `npm test`. */
export function shellCommand(command: unknown): string | undefined {
	if (typeof command === "string") return command;
	if (!Array.isArray(command) || !command.every((c) => typeof c === "string")) return undefined;
	const words = command as string[];
	if (words.length === 3 && /^(?:ba|z)?sh$/.test(words[0] as string) && /^-l?c$/.test(words[1] as string))
		return words[2];
	return words.join(" ");
}

/** A tool call's arguments as the detectors read them (a shell command as a string). */
function callArgs(name: string, raw: unknown): Record<string, unknown> {
	let args: unknown = raw;
	if (typeof raw === "string") {
		try {
			args = JSON.parse(raw);
		} catch {
			args = name === "apply_patch" ? { patch: raw } : { input: raw };
		}
	}
	const obj = asObject(args) ?? {};
	const command = shellCommand(obj.command ?? obj.cmd);
	return command !== undefined ? { ...obj, command } : obj;
}

/** A function call's output: older rollouts wrap it as JSON with the exit code in `metadata`. */
function outputOf(raw: unknown): { text: string; isError: boolean } {
	const wrapped = asObject(raw);
	let text = typeof raw === "string" ? raw : typeof wrapped?.content === "string" ? wrapped.content : "";
	let isError = wrapped?.success === false;
	if (text.startsWith("{")) {
		try {
			const o = asObject(JSON.parse(text));
			const exit = asObject(o?.metadata)?.exit_code;
			if (o && typeof o.output === "string") {
				text = typeof exit === "number" && exit !== 0 ? `${o.output}\nExit code: ${exit}` : o.output;
				if (typeof exit === "number" && exit !== 0) isError = true;
			}
		} catch {
			// plain text that starts with a brace
		}
	}
	const exit = /^Exit code: (\d+)/m.exec(text.slice(0, 200));
	if (exit && exit[1] !== "0") isError = true;
	return { text, isError };
}

export function codexParser(stats: ScanStats): SessionParser {
	const pairer = new CallPairer(stats);
	// A new assistant turn starts with the first call or message after a result.
	let answered = true;
	const turn = () => {
		if (answered) pairer.newTurn();
		answered = false;
	};
	return {
		line(text, out) {
			const entry = parseJsonLine(text, stats);
			if (!entry) return;
			const payload = asObject(entry.payload);
			if (entry.type === "compacted") {
				out.push({ type: "compaction" });
				return;
			}
			if (entry.type !== "response_item" || !payload) {
				if (entry.type !== "session_meta" && entry.type !== "turn_context" && entry.type !== "event_msg")
					stats.otherLines++;
				return;
			}
			switch (payload.type) {
				case "message": {
					const words = blocksText(payload.content);
					if (payload.role === "user") {
						if (words.trim() && !NOT_PROMPT.test(words)) out.push({ type: "prompt", text: words });
					} else if (payload.role === "assistant") {
						turn();
						out.push({ type: "assistant", text: words } satisfies SessionEvent);
					}
					return;
				}
				case "function_call":
				case "custom_tool_call": {
					turn();
					const name = typeof payload.name === "string" ? payload.name : "";
					pairer.call(payload.call_id, name, callArgs(name, payload.arguments ?? payload.input));
					return;
				}
				case "local_shell_call": {
					turn();
					const action = asObject(payload.action);
					pairer.call(payload.call_id ?? payload.id, "local_shell", { command: shellCommand(action?.command) ?? "" });
					return;
				}
				case "function_call_output":
				case "custom_tool_call_output": {
					answered = true;
					const { text: result, isError } = outputOf(payload.output);
					pairer.result(payload.call_id, resultText(result), isError, undefined, out);
					return;
				}
				case "compaction":
				case "compaction_summary":
					out.push({ type: "compaction" });
					return;
				default:
					if (payload.type !== "reasoning") stats.otherLines++;
			}
		},
		end(out) {
			pairer.flush(out);
		},
	};
}
