// Globs where only * and ? are special, over names such as provider/id:thinking.
import { describe, expect, it } from "vitest";
import { compileStarGlob, MAX_STAR_GLOB_CHARS, MAX_STAR_GLOB_SUBJECT } from "../../../src/util/index.ts";

const matches = (pattern: string, name: string) => {
	const glob = compileStarGlob(pattern);
	if (!glob.ok) throw new Error(glob.error);
	return glob.matches(name);
};

describe("compileStarGlob", () => {
	it("is anchored at both ends and case-sensitive", () => {
		expect(matches("openai/gpt-5", "openai/gpt-5")).toBe(true);
		expect(matches("openai/gpt", "openai/gpt-5")).toBe(false);
		expect(matches("gpt-5", "openai/gpt-5")).toBe(false);
		expect(matches("OpenAI/gpt-5", "openai/gpt-5")).toBe(false);
		expect(matches("openai/*", "OPENAI/gpt-5")).toBe(false);
	});

	it("lets * cross the / of provider/id, and ? stand for any one character, / included", () => {
		expect(matches("*", "openai/gpt-5:high")).toBe(true);
		expect(matches("openai*", "openai/gpt-5")).toBe(true);
		expect(matches("openrouter/*", "openrouter/anthropic/claude-4")).toBe(true);
		expect(matches("*:high", "anthropic/claude-opus-4-8:high")).toBe(true);
		expect(matches("*:high", "anthropic/claude-opus-4-8:xhigh")).toBe(false);
		expect(matches("a?b", "a/b")).toBe(true);
		expect(matches("a?b", "ab")).toBe(false);
		expect(matches("gpt-?", "gpt-5")).toBe(true);
		expect(matches("**", "a/b/c")).toBe(true);
	});

	it("reads every other glob syntax as the characters themselves", () => {
		// classes, braces, extglobs, negation, comments, escapes
		expect(matches("p/[ab]", "p/a")).toBe(false);
		expect(matches("p/[ab]", "p/[ab]")).toBe(true);
		expect(matches("p/{a,b}", "p/a")).toBe(false);
		expect(matches("p/{a,b}", "p/{a,b}")).toBe(true);
		expect(matches("p/+(a)", "p/a")).toBe(false);
		expect(matches("p/@(a|b)", "p/@(a|b)")).toBe(true);
		expect(matches("!openai/*", "anthropic/x")).toBe(false);
		expect(matches("!openai/*", "!openai/x")).toBe(true);
		expect(matches("#x", "#x")).toBe(true);
		// a backslash is a backslash, not an escape: the * after it is still a wildcard
		expect(matches("p/a\\*", "p/a\\b")).toBe(true);
		expect(matches("p/a\\*", "p/a*")).toBe(false);
		expect(matches("p/a.b", "p/axb")).toBe(false);
		expect(matches("p/..", "p/..")).toBe(true);
		expect(matches("./p", "./p")).toBe(true);
		expect(matches("p//q", "p/q")).toBe(false);
	});

	it("compares characters exactly, without folding Unicode forms", () => {
		expect(matches("p/caf\u00e9", "p/caf\u00e9")).toBe(true);
		expect(matches("p/cafe\u0301", "p/caf\u00e9")).toBe(false);
	});

	it("refuses empty and over-long patterns, and the stand-in character, with a reason", () => {
		expect(compileStarGlob("")).toEqual({ ok: false, error: "a pattern may not be empty" });
		expect(compileStarGlob("x".repeat(MAX_STAR_GLOB_CHARS + 1))).toEqual({
			ok: false,
			error: expect.stringMatching(/257 characters long; at most 256/),
		});
		expect(compileStarGlob("a\uE000b")).toEqual({ ok: false, error: expect.stringMatching(/U\+E000/) });
		expect(compileStarGlob("x".repeat(MAX_STAR_GLOB_CHARS)).ok).toBe(true);
	});

	it("never matches an empty or over-long name", () => {
		expect(matches("*", "")).toBe(false);
		expect(matches("*", "a".repeat(MAX_STAR_GLOB_SUBJECT + 1))).toBe(false);
		expect(matches("*", "a".repeat(MAX_STAR_GLOB_SUBJECT))).toBe(true);
		expect(matches("a*", "a\uE000")).toBe(false);
	});

	it("answers a pattern built to make a backtracking matcher blow up", () => {
		// 127 stars: a RegExp would explore an astronomical number of splits of the name
		const hostile = `${"*a".repeat(127)}*b`;
		expect(hostile.length).toBeLessThanOrEqual(MAX_STAR_GLOB_CHARS);
		expect(matches(hostile, "a".repeat(MAX_STAR_GLOB_SUBJECT))).toBe(false);
		expect(matches(hostile, `${"a".repeat(MAX_STAR_GLOB_SUBJECT - 1)}b`)).toBe(true);
	});
});
