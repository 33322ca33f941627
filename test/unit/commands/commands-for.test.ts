import { describe, expect, it } from "vitest";
import { commandsFor, parseCommand } from "../../../src/commands/watchdog-command.ts";
import type { ConfigureRequest } from "../../../src/settings/configure.ts";

const req = (r: Partial<ConfigureRequest>): ConfigureRequest => ({ scope: "session", target: "main", ...r });

describe("the command a user runs to make an agent's change", () => {
	it("names scope and target the way the command reads them", () => {
		expect(commandsFor(req({ scope: "user", enabled: false }))).toEqual(["/subagents-watchdog off"]);
		expect(commandsFor(req({ enabled: true }))).toEqual(["/subagents-watchdog session on"]);
		expect(commandsFor(req({ scope: "project", target: "children", enabled: false }))).toEqual([
			"/subagents-watchdog project children off",
		]);
		expect(commandsFor(req({ scope: "user", target: "worker", model: "a/b" }))).toEqual([
			"/subagents-watchdog role worker model a/b",
		]);
	});

	it("joins a thinking level to the model, and keeps inherit and recommended as words", () => {
		expect(commandsFor(req({ scope: "user", model: "a/b:low", thinking: "high" }))).toEqual([
			"/subagents-watchdog model a/b:high",
		]);
		expect(commandsFor(req({ model: "a/b", thinking: "inherit" }))).toEqual([
			"/subagents-watchdog session model a/b",
			"/subagents-watchdog session thinking inherit",
		]);
		expect(commandsFor(req({ model: "recommended", thinking: "low" }))).toEqual([
			"/subagents-watchdog session model recommended",
			"/subagents-watchdog session thinking low",
		]);
		expect(commandsFor(req({ enabled: false, model: "inherit" }))).toEqual([
			"/subagents-watchdog session off",
			"/subagents-watchdog session model inherit",
		]);
		expect(commandsFor(req({ model: "a/b", thinking: "high", force: true }))).toEqual([
			"/subagents-watchdog session model a/b:high --force",
		]);
	});

	it("every command it names parses back to the same scope, target and value", () => {
		const requests = [
			req({ scope: "user", enabled: false }),
			req({ scope: "project", target: "children", model: "p/m:minimal" }),
			req({ target: "my-role_2", thinking: "off" }),
			req({ scope: "project", target: "reviewer", enabled: true }),
			req({ scope: "user", target: "children", model: "p/typo", force: true }),
		];
		for (const r of requests) {
			const [command] = commandsFor(r);
			const op = parseCommand(command.replace("/subagents-watchdog ", ""));
			expect(op).toEqual({ kind: "configure", request: r });
		}
	});

	it("parses the target words and says what is missing", () => {
		expect(parseCommand("children on")).toEqual({
			kind: "configure",
			request: { scope: "user", target: "children", enabled: true },
		});
		expect(parseCommand("session role worker thinking low")).toEqual({
			kind: "configure",
			request: { scope: "session", target: "worker", thinking: "low" },
		});
		expect(parseCommand("role")).toMatchObject({
			kind: "error",
			message: expect.stringMatching(/role needs a role name/),
		});
		expect(parseCommand("project children model")).toMatchObject({
			kind: "error",
			message: expect.stringMatching(/^project children model needs a value/),
		});
	});
});
