import { describe, expect, it } from "vitest";
import { completeArguments, parseCommand } from "../../../src/commands/watchdog-command.ts";

describe("/subagents-watchdog arguments", () => {
	it("parses every subcommand", () => {
		expect(parseCommand("")).toEqual({ kind: "status", level: "brief" });
		expect(parseCommand(" status ")).toEqual({ kind: "status", level: "brief" });
		expect(parseCommand("status --all")).toEqual({ kind: "status", level: "all" });
		expect(parseCommand("status --settings")).toEqual({ kind: "status", level: "settings" });
		expect(parseCommand("status --verbose")).toMatchObject({ kind: "error" });
		expect(parseCommand("on")).toEqual({
			kind: "configure",
			request: { scope: "user", target: "main", enabled: true },
		});
		expect(parseCommand("off")).toEqual({
			kind: "configure",
			request: { scope: "user", target: "main", enabled: false },
		});
		expect(parseCommand("session on")).toEqual({
			kind: "configure",
			request: { scope: "session", target: "main", enabled: true },
		});
		expect(parseCommand("session off")).toEqual({
			kind: "configure",
			request: { scope: "session", target: "main", enabled: false },
		});
		expect(parseCommand("model a/b:high")).toEqual({
			kind: "configure",
			request: { scope: "user", target: "main", model: "a/b:high" },
		});
		expect(parseCommand("model recommended")).toMatchObject({ request: { scope: "user", model: "recommended" } });
		expect(parseCommand("session model inherit")).toMatchObject({ request: { scope: "session", model: "inherit" } });
		expect(parseCommand("thinking high")).toEqual({
			kind: "configure",
			request: { scope: "user", target: "main", thinking: "high" },
		});
		expect(parseCommand("recommend-model")).toEqual({ kind: "recommend" });
		expect(parseCommand("check")).toEqual({ kind: "check" });
		expect(parseCommand("check --offline")).toEqual({ kind: "check", offline: true });
		expect(parseCommand("session model openai/gpt-9 --force")).toEqual({
			kind: "configure",
			request: { scope: "session", target: "main", model: "openai/gpt-9", force: true },
		});
		expect(parseCommand("model --force a/b:low")).toEqual({
			kind: "configure",
			request: { scope: "user", target: "main", model: "a/b:low", force: true },
		});
	});

	it("answers mistakes with what to type instead", () => {
		expect(parseCommand("model")).toMatchObject({ kind: "error", message: expect.stringMatching(/needs a value/) });
		expect(parseCommand("thinking loud")).toMatchObject({
			kind: "error",
			message: expect.stringMatching(/needs a level/),
		});
		expect(parseCommand("enable")).toMatchObject({
			kind: "error",
			message: expect.stringMatching(/unknown subcommand "enable"[\s\S]*recommend-model/),
		});
		expect(parseCommand("on now")).toMatchObject({
			kind: "error",
			message: expect.stringMatching(/takes no further arguments/),
		});
		expect(parseCommand("session")).toMatchObject({ kind: "error" });
		expect(parseCommand("check now")).toMatchObject({
			kind: "error",
			message: expect.stringMatching(/^check takes only --offline, not "now"/),
		});
		expect(parseCommand("on --force")).toMatchObject({
			kind: "error",
			message: expect.stringMatching(/--force goes with model/),
		});
		expect(parseCommand("model --force")).toMatchObject({
			kind: "error",
			message: expect.stringMatching(/needs a value/),
		});
	});

	it("completes subcommands and their values as whole argument strings", () => {
		expect(completeArguments("", [])?.map((c) => c.value)).toEqual([
			"status",
			"on",
			"off",
			"session",
			"model",
			"thinking",
			"recommend-model",
			"check",
			"history",
			"fleet",
			"review",
			"dismiss",
			"policy",
			"settings",
			"test",
			"trust",
			"help",
			"allow",
		]);
		expect(completeArguments("settings ", [])?.map((c) => c.value)).toEqual(["settings accept"]);
		expect(parseCommand("settings accept")).toEqual({ kind: "settings-accept" });
		expect(parseCommand("settings")).toMatchObject({ kind: "error", message: "settings takes accept" });
		expect(completeArguments("dismiss ", [])?.map((c) => c.value)).toEqual(["dismiss all"]);
		expect(completeArguments("policy h", [])?.map((c) => c.value)).toEqual(["policy handsoff"]);
		expect(parseCommand("policy handsoff")).toEqual({ kind: "policy", policy: "handsoff" });
		expect(parseCommand("policy maybe")).toMatchObject({
			kind: "error",
			message: expect.stringContaining("off, keep or handsoff"),
		});
		expect(parseCommand("dismiss 2")).toEqual({ kind: "dismiss", which: 2 });
		expect(parseCommand("dismiss")).toEqual({ kind: "dismiss", which: "all" });
		expect(parseCommand("dismiss two")).toMatchObject({ kind: "error" });
		expect(parseCommand("review")).toEqual({ kind: "review" });
		expect(completeArguments("re", [])?.map((c) => c.value)).toEqual(["recommend-model", "review"]);
		expect(completeArguments("session ", [])?.map((c) => c.value)).toEqual([
			"session on",
			"session off",
			"session model",
			"session thinking",
		]);
		expect(completeArguments("session model r", [])?.map((c) => c.value)).toEqual(["session model recommended"]);
		expect(completeArguments("model ", ["faux/a", "faux/b"])?.map((c) => c.value)).toEqual([
			"model recommended",
			"model inherit",
			"model faux/a",
			"model faux/b",
		]);
		expect(completeArguments("thinking h", [])?.map((c) => c.value)).toEqual(["thinking high"]);
		expect(completeArguments("check ", [])?.map((c) => c.value)).toEqual(["check --offline"]);
		expect(completeArguments("check --offline ", [])).toBeNull();
		expect(completeArguments("session model openai/gpt-9 ", [])?.map((c) => c.value)).toEqual([
			"session model openai/gpt-9 --force",
		]);
		expect(completeArguments("model recommended ", [])).toBeNull();
		expect(completeArguments("zzz", [])).toBeNull();
	});
});
