// The one checker of a model's tool arguments: the tool's TypeBox schema (the one the model is
// shown) decides, through TypeBox `Value`. Before the check, the habits of models that do not
// change the meaning are forgiven: arguments sent as a JSON string, no arguments at all, a null
// field for an absent one, a quoted whole number or boolean. A blank string counts as empty.
// Every problem becomes one sentence naming the field and what it must be.
import type { Static, TObject } from "typebox";
import { Value } from "typebox/value";
import { clip, isPlainObject } from "../util/index.ts";

export type Checked<S extends TObject> =
	| { ok: true; value: Static<S>; unknownKeys: string[] }
	| { ok: false; error: string };

interface FieldSchema {
	type?: string;
	minimum?: number;
	maximum?: number;
	minLength?: number;
	maxLength?: number;
	enum?: unknown[];
	anyOf?: Array<{ const?: unknown }>;
}

export function checkArgs<S extends TObject>(schema: S, args: unknown): Checked<S> {
	let input = args;
	// Some providers hand over the arguments as a JSON string.
	if (typeof args === "string") {
		try {
			input = JSON.parse(args);
		} catch {
			return {
				ok: false,
				error: `the arguments must be a JSON object, got the text ${JSON.stringify(clip(args, 61))}`,
			};
		}
	}
	if (input === undefined || input === null) input = {};
	if (typeof input !== "object" || Array.isArray(input)) {
		return { ok: false, error: `the arguments must be a JSON object, got ${describe(input)}` };
	}

	const given = input as Record<string, unknown>;
	const fields = schema.properties as Record<string, FieldSchema>;
	const candidate: Record<string, unknown> = {};
	for (const [name, raw] of Object.entries(given)) {
		if (raw === undefined || (raw === null && name in fields)) continue;
		candidate[name] = name in fields ? forgiven(fields[name], raw) : raw;
	}
	const problems: string[] = [];
	const seen = new Set<string>();
	const say = (name: string, text: string) => {
		if (!seen.has(name)) problems.push(`"${name}" ${text}`);
		seen.add(name);
	};
	for (const error of Value.Errors(schema, candidate)) {
		if (error.keyword === "required") {
			const names = (error.params as { requiredProperties?: string[] }).requiredProperties ?? [];
			for (const name of names) say(name, "is required");
			continue;
		}
		if (error.keyword === "additionalProperties") {
			const names = (error.params as { additionalProperties?: string[] }).additionalProperties ?? [];
			for (const name of names) say(name, "is not a field of this tool");
			continue;
		}
		const name = error.instancePath.split("/")[1] ?? "";
		if (name in fields) say(name, problemOf(fields[name], given[name], candidate[name]));
		else if (name) say(name, "is not a field of this tool");
		else problems.push(`the arguments ${error.message}`);
	}
	for (const [name, field] of Object.entries(fields)) {
		const value = candidate[name];
		if (typeof value === "string" && (field.minLength ?? 0) >= 1 && value.trim() === "") say(name, "must not be empty");
	}
	if (problems.length) return { ok: false, error: problems.join("; ") };
	const value = Object.fromEntries(Object.entries(candidate).filter(([name]) => name in fields));
	return { ok: true, value: value as Static<S>, unknownKeys: Object.keys(given).filter((k) => !(k in fields)) };
}

/** The arguments with every top-level string trimmed, for tools whose texts are prose (a model's " high " is high). */
export function trimStrings(args: unknown): unknown {
	if (!isPlainObject(args)) return args;
	return Object.fromEntries(Object.entries(args).map(([k, v]) => [k, typeof v === "string" ? v.trim() : v]));
}

/** The shape a tool takes, for error messages: `{ path: string, offset?: integer }`. */
export function argsShape(schema: TObject): string {
	const required = new Set<string>((schema.required as string[] | undefined) ?? []);
	const fields = Object.entries(schema.properties as Record<string, FieldSchema>).map(
		([name, f]) => `${name}${required.has(name) ? "" : "?"}: ${f.type ?? "string"}`,
	);
	return `{ ${fields.join(", ")} }`;
}

/** Models sometimes quote numbers and booleans; "40" is taken as 40, "true" as true. */
function forgiven(field: FieldSchema, value: unknown): unknown {
	if (typeof value !== "string") return value;
	if ((field.type === "integer" || field.type === "number") && /^\s*-?\d+\s*$/.test(value)) return Number(value);
	if (field.type === "boolean" && (value === "true" || value === "false")) return value === "true";
	return value;
}

function problemOf(field: FieldSchema, original: unknown, value: unknown): string {
	const allowed = field.enum ?? (field.anyOf?.every((a) => "const" in a) ? field.anyOf.map((a) => a.const) : undefined);
	if (allowed) return `must be ${oneOf(allowed.map(String))}, got ${describe(original)}`;
	switch (field.type) {
		case "integer":
		case "number": {
			const whole = typeof value === "number" && (field.type !== "integer" || Number.isInteger(value));
			if (!whole) return `must be a whole number, got ${describe(original)}`;
			if (field.maximum === undefined) return `must be at least ${field.minimum}, got ${value}`;
			return `must be between ${field.minimum ?? Number.MIN_SAFE_INTEGER} and ${field.maximum}, got ${value}`;
		}
		case "boolean":
			return `must be true or false, got ${describe(original)}`;
		case "string": {
			if (typeof value !== "string") return `must be a string, got ${describe(original)}`;
			const max = field.maxLength;
			if (max !== undefined && value.length > max) return `must be at most ${max} characters, got ${value.length}`;
			return "must not be empty";
		}
		default:
			return `is not what this tool takes, got ${describe(original)}`;
	}
}

function oneOf(values: readonly string[]): string {
	if (values.length === 1) return values[0];
	return values.length <= 3 ? `${values.slice(0, -1).join(", ")} or ${values.at(-1)}` : `one of ${values.join(", ")}`;
}

function describe(value: unknown): string {
	if (Array.isArray(value)) return "an array";
	if (value === null) return "null";
	if (typeof value === "string") return `the string ${JSON.stringify(clip(value, 61))}`;
	if (typeof value === "object") return "an object";
	return `${typeof value} ${String(value)}`;
}
