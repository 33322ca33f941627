// The one checker of a model's tool arguments: TypeBox `Value` over the tool's schema decides;
// the habits of models that keep the meaning are forgiven, and every problem names its field.
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { argsShape, checkArgs, enumOf, trimStrings } from "../../../src/model-call/index.ts";

const TOOL = Type.Object({
	path: Type.String({ minLength: 1 }),
	offset: Type.Optional(Type.Integer({ minimum: 1, maximum: 2000 })),
	all: Type.Optional(Type.Boolean()),
	level: Type.Optional(enumOf(["low", "medium", "high"] as const, "how much")),
});
const STRICT = Type.Object(
	{
		decision: Type.Union([Type.Literal("approve"), Type.Literal("deny")]),
		reason: Type.String({ minLength: 1, maxLength: 10 }),
	},
	{ additionalProperties: false },
);

describe("checkArgs", () => {
	it("takes what the schema takes, forgiving a JSON string, quoted numbers and booleans, and null for absent", () => {
		expect(checkArgs(TOOL, { path: "a", offset: "40", all: "true", level: null })).toEqual({
			ok: true,
			value: { path: "a", offset: 40, all: true },
			unknownKeys: [],
		});
		expect(checkArgs(TOOL, '{"path":"a","extra":1}')).toEqual({
			ok: true,
			value: { path: "a" },
			unknownKeys: ["extra"],
		});
	});

	it("names every field that is wrong, and what it must be", () => {
		expect(checkArgs(TOOL, undefined)).toEqual({ ok: false, error: '"path" is required' });
		const bad = checkArgs(TOOL, { path: "  ", offset: 1.5, all: "yes", level: "urgent" });
		expect(bad).toEqual({ ok: false, error: expect.any(String) });
		if (bad.ok) return;
		expect(bad.error.split("; ").sort()).toEqual([
			'"all" must be true or false, got the string "yes"',
			'"level" must be low, medium or high, got the string "urgent"',
			'"offset" must be a whole number, got number 1.5',
			'"path" must not be empty',
		]);
		expect(checkArgs(TOOL, { path: "a", offset: 0 })).toEqual({
			ok: false,
			error: '"offset" must be between 1 and 2000, got 0',
		});
		expect(checkArgs(TOOL, ["a"])).toEqual({ ok: false, error: "the arguments must be a JSON object, got an array" });
		expect(checkArgs(TOOL, "not json")).toEqual({
			ok: false,
			error: 'the arguments must be a JSON object, got the text "not json"',
		});
	});

	it("keeps a strict schema strict: unknown fields, over-long text and other values are refused", () => {
		expect(checkArgs(STRICT, { decision: "approve", reason: "ok" })).toMatchObject({
			ok: true,
			value: { decision: "approve", reason: "ok" },
		});
		expect(checkArgs(STRICT, { decision: "approve", reason: "ok", also: "run rm" })).toEqual({
			ok: false,
			error: '"also" is not a field of this tool',
		});
		expect(checkArgs(STRICT, { decision: "approve", reason: "x".repeat(11) })).toEqual({
			ok: false,
			error: '"reason" must be at most 10 characters, got 11',
		});
		expect(checkArgs(STRICT, { decision: "yes", reason: "ok" })).toEqual({
			ok: false,
			error: '"decision" must be approve or deny, got the string "yes"',
		});
	});

	it("trims prose for tools that want it, and states a tool's shape", () => {
		expect(trimStrings({ a: " x ", b: 1 })).toEqual({ a: "x", b: 1 });
		expect(argsShape(TOOL)).toBe("{ path: string, offset?: integer, all?: boolean, level?: string }");
	});
});
