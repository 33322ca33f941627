// Checks the arguments a model sent against what a tool accepts: the tool's one TypeBox schema
// (the same the model is shown), read here field by field. The model's JSON may be anything,
// so each problem becomes one sentence naming the field and what it must be.
import type { Static, TObject } from "typebox";
import { clip } from "../../util/index.ts";

type FieldSpec =
	| { type: "string"; required: boolean; allowEmpty: boolean }
	| { type: "integer"; required: boolean; min: number; max?: number }
	| { type: "boolean"; required: boolean };

export type ParsedArgs<S extends TObject> = { ok: true; values: Static<S> } | { ok: false; error: string };

/** The fields of a tool's schema: strings (non-empty when `minLength` is 1), integers with bounds, booleans. */
function fieldsOf(schema: TObject): Record<string, FieldSpec> {
	const required = new Set<string>((schema.required as string[] | undefined) ?? []);
	const fields: Record<string, FieldSpec> = {};
	for (const [name, raw] of Object.entries(schema.properties)) {
		const p = raw as { type?: string; minimum?: number; maximum?: number; minLength?: number };
		const isRequired = required.has(name);
		if (p.type === "integer") fields[name] = { type: "integer", required: isRequired, min: p.minimum ?? Number.MIN_SAFE_INTEGER, ...(p.maximum !== undefined ? { max: p.maximum } : {}) };
		else if (p.type === "boolean") fields[name] = { type: "boolean", required: isRequired };
		else fields[name] = { type: "string", required: isRequired, allowEmpty: (p.minLength ?? 0) < 1 };
	}
	return fields;
}

export function parseArgs<S extends TObject>(tool: string, args: unknown, schema: S): ParsedArgs<S> {
	const fields = fieldsOf(schema);
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
	return { ok: true, values: values as Static<S> };
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

function bad(tool: string, problem: string, fields: Record<string, FieldSpec>): { ok: false; error: string } {
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
