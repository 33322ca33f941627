// Unfinished stops that hand the agent's own work to the user (a command it could run, questions
// the repository answers), and honest hand-offs that must stay finished: what only the user
// can do, work truly still running in the background, a result delivered as the file asked for.
import { describe, expect, it } from "vitest";
import { EvidenceLog, unfinishedStop } from "../../../src/evidence/index.ts";
import { makeCallRecord, type SessionEvent } from "../../../src/transcript/index.ts";

let n = 0;
const prompt = (text: string): SessionEvent => ((n = 0), { type: "prompt", text });
const say = (text: string): SessionEvent => ({ type: "assistant", text });
const call = (name: string, args: Record<string, unknown>, result = "ok", isError = false, changed?: boolean) =>
	({ type: "call", call: makeCallRecord(n++, name, args, result, isError, changed) }) as SessionEvent;
const bash = (command: string, result: string, isError = false) => call("bash", { command }, result, isError);
const write = (path: string) => call("write", { path, content: "x" }, `Wrote ${path}`, false, true);

function stop(events: SessionEvent[]) {
	const log = new EvidenceLog();
	const deferred = new EvidenceLog({ deferFacts: true });
	for (const e of events) {
		log.add(e);
		deferred.add(e);
	}
	const verdict = unfinishedStop(log.facts, log.current());
	// A log that builds its facts only when the verdict reads them comes to the same verdict and facts.
	expect(unfinishedStop(deferred, deferred.current())).toEqual(verdict);
	expect(deferred.facts).toEqual(log.facts);
	return verdict;
}
const kind = (events: SessionEvent[]) => stop(events)?.kind;
const unfinished = (events: SessionEvent[]) => stop(events)?.unfinished === true;

const RUSTUP = "```\ncurl --proto '=https' -sSf https://sh.rustup.rs | sh\n```";

describe("a command handed to the user that the agent could run", () => {
	const cases: Array<[string, () => SessionEvent[], string | undefined]> = [
		[
			"the toolchain is missing, the installer handed over, 'tell me when done'",
			() => [
				prompt("build the app"),
				bash("cargo --version", "command not found: cargo", true),
				say(`Rust is not installed. Run this in a terminal:\n${RUSTUP}\nLet me know when it's done and I'll continue.`),
			],
			"handed-back",
		],
		[
			"an inline command, 'once that's done'",
			() => [
				prompt("set up the project"),
				bash("npm run dev", "sh: vite: command not found", true),
				say("Please run `npm install` first; once that's done I'll continue with the dev server."),
			],
			"handed-back",
		],
		[
			"only sudo can do it",
			() => [
				prompt("build it"),
				bash("make", "libssl missing", true),
				say("Please run:\n```\nsudo apt-get install libssl-dev\n```\nLet me know when it's done and I'll continue."),
			],
			undefined,
		],
		[
			"the result is delivered, with next steps for the user",
			() => [
				prompt("add the deploy script"),
				write("scripts/deploy.sh"),
				bash("bash -n scripts/deploy.sh", ""),
				say(
					"Added `scripts/deploy.sh`. To deploy, run:\n```\nbash scripts/deploy.sh\n```\nLet me know when it's live.",
				),
			],
			undefined,
		],
		[
			"the agent has no shell in this session",
			() => [
				prompt("explain the build"),
				call("read", { path: "Makefile" }),
				say(`Run:\n${RUSTUP}\nTell me when it's done.`),
			],
			undefined,
		],
	];
	for (const [name, events, expected] of cases)
		it(`${expected ?? "finished"}: ${name}`, () =>
			expect(expected ? kind(events()) : unfinished(events())).toBe(expected ?? false));
});

describe("questions the repository could answer, asked with nothing run", () => {
	const questions =
		"Before I start:\n1. Which framework does the project use?\n2. Where are the tests kept, which folder?\n3. What version of Node is configured?";
	it("flags them when nothing ran", () => {
		expect(kind([prompt("add a health endpoint"), say(questions)])).toBe("asks-instead");
	});
	it("does not flag them once the agent looked", () => {
		expect(
			kind([prompt("add a health endpoint"), call("read", { path: "package.json" }), say(questions)]),
		).toBeUndefined();
	});
	it("does not flag questions only the user can answer", () => {
		const choices = "Would you like JSON or plain text output?\nDo you prefer the endpoint under /api or at the root?";
		expect(unfinished([prompt("add a health endpoint"), say(choices)])).toBe(false);
	});
	it("does not flag a single question", () => {
		expect(kind([prompt("add a health endpoint"), say("Which folder should it go in?")])).toBeUndefined();
	});
});

describe("work truly still running", () => {
	for (const [name, start] of [
		["a detached container", bash("docker compose up -d --build", "Started")],
		["a background tool call", call("bash", { command: "npm run e2e", run_in_background: true }, "started")],
		["a CI workflow run", bash("gh workflow run e2e.yml", "Created workflow_dispatch event")],
	] as const)
		it(`is not 'waiting with nothing running': ${name}`, () => {
			const events = [prompt("run the e2e suite"), start, say("The suite is still running; I will check back on it.")];
			expect(kind(events)).toBeUndefined();
		});
	it("is 'waiting' when nothing was started", () => {
		const events = [
			prompt("run the e2e suite"),
			bash("npm run e2e", "Tests: 3 passed"),
			say("Still running, I will check back."),
		];
		expect(kind(events)).toBe("waiting");
	});
});

describe("a result delivered as the file asked for", () => {
	it("an empty final message after writing the file the prompt names is finished", () => {
		expect(
			kind([prompt("Write the findings to test-results.md"), write("out/test-results.md"), say("")]),
		).toBeUndefined();
	});
	it("an empty final message after writing another file is not", () => {
		expect(kind([prompt("Fix the parser and report"), write("src/parser.ts"), say("")])).toBe("empty");
	});
});
