// Checks the arguments a model sent against what a tool accepts. The model's JSON may be
// anything, so each problem becomes one sentence naming the field and what it must be.
import { clip } from "../../util/index.ts";

export type FieldSpec =
	| { type: "string"; required?: boolean; allowEmpty?: boolean }
	| { type: "integer"; required?: boolean; min: number; max?: number }
	| { type: "boolean"; required?: boolean };

export type ParsedArgs = { ok: true; values: Record<string, string | number | boolean | undefined> } | { ok: false; error: string };

export function parseArgs(tool: string, args: unknown, fields: Record<string, FieldSpec>): ParsedArgs {
	let input = args;
	// Some providers hand over the arguments as a JSON string.
	if (typeof args === "string") {
		try {
			input = JSON.parse(args);
		} catch {
			return bad(tool, `its arguments must be a JSON object, got the text ${JSON.stringify(clip(args, 61))}`, fields);
		}
	}
	if (input === undefined || input === null) input = {};
	if (typeof input !== "object" || Array.isArray(input)) return bad(tool, `its arguments must be a JSON object, got ${describe(input)}`, fields);

	const record = input as Record<string, unknown>;
	const values: Record<string, string | number | boolean | undefined> = {};
	for (const [name, spec] of Object.entries(fields)) {
		const value = record[name];
		if (value === undefined || value === null) {
			if (spec.required) return bad(tool, `"${name}" is required`, fields);
			continue;
		}
		const checked = checkField(name, spec, value);
		if (typeof checked === "object") return bad(tool, checked.error, fields);
		values[name] = checked;
	}
	return { ok: true, values };
}

function checkField(name: string, spec: FieldSpec, value: unknown): string | number | boolean | { error: string } {
	switch (spec.type) {
		case "string":
			if (typeof value !== "string") return { error: `"${name}" must be a string, got ${describe(value)}` };
			if (!spec.allowEmpty && value.trim() === "") return { error: `"${name}" must not be empty` };
			return value;
		case "integer": {
			// Models sometimes quote numbers; "40" is taken as 40.
			const n = typeof value === "string" && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;
			if (typeof n !== "number" || !Number.isInteger(n)) return { error: `"${name}" must be a whole number, got ${describe(value)}` };
			if (spec.max === undefined && n < spec.min) return { error: `"${name}" must be at least ${spec.min}, got ${n}` };
			if (spec.max !== undefined && (n < spec.min || n > spec.max)) return { error: `"${name}" must be between ${spec.min} and ${spec.max}, got ${n}` };
			return n;
		}
		case "boolean":
			if (value === "true" || value === "false") return value === "true";
			if (typeof value !== "boolean") return { error: `"${name}" must be true or false, got ${describe(value)}` };
			return value;
	}
}

function bad(tool: string, problem: string, fields: Record<string, FieldSpec>): ParsedArgs {
	const shape = Object.entries(fields)
		.map(([name, spec]) => `${name}${spec.required ? "" : "?"}: ${spec.type}`)
		.join(", ");
	return { ok: false, error: `${tool}: ${problem}. Expected arguments { ${shape} }.` };
}

function describe(value: unknown): string {
	if (Array.isArray(value)) return "an array";
	if (value === null) return "null";
	if (typeof value === "string") return `the string ${JSON.stringify(clip(value, 61))}`;
	if (typeof value === "object") return "an object";
	return `${typeof value} ${String(value)}`;
}
