// The `subagent` tool's reference in docs/subagent-tool.md, written from the tool's TypeBox
// schema and the description the model reads, so the doc says what the tool accepts (pure).
import { SUBAGENT_DESCRIPTION, subagentParameters } from "../children/index.ts";
import { table } from "./markdown.ts";

/** The part of a JSON schema (TypeBox builds plain ones) the reference reads. */
interface JsonSchema {
	type?: string;
	description?: string;
	enum?: unknown[];
	const?: unknown;
	anyOf?: JsonSchema[];
	items?: JsonSchema;
	properties?: Record<string, JsonSchema>;
	required?: string[];
	minimum?: number;
	maximum?: number;
}

const code = (v: unknown) => `\`${String(v)}\``;

function typeOf(schema: JsonSchema): string {
	if (schema.enum) return schema.enum.map(code).join(", ");
	if (schema.const !== undefined) return code(schema.const);
	if (schema.anyOf) return schema.anyOf.map(typeOf).join(" or ");
	if (schema.type === "array") {
		const step = schema.items?.properties ? `{${Object.keys(schema.items.properties).join(", ")}}` : "values";
		return `list of ${step}`;
	}
	const range = [
		schema.minimum === undefined ? "" : `at least ${schema.minimum}`,
		schema.maximum === undefined ? "" : `at most ${schema.maximum}`,
	].filter(Boolean);
	const kind = schema.type === "integer" ? "whole number" : schema.type === "string" ? "text" : (schema.type ?? "any");
	return [kind, ...range].join(", ");
}

function rows(schema: JsonSchema): string[][] {
	const required = new Set(schema.required ?? []);
	return Object.entries(schema.properties ?? {}).map(([name, field]) => [
		`\`${name}\``,
		typeOf(field),
		required.has(name) ? "yes" : "",
		field.description ?? "",
	]);
}

/** The reference: the actions as the model is told them, then every parameter and a step's fields. */
export function toolReference(): string {
	const parameters = subagentParameters as unknown as JsonSchema;
	const step = parameters.properties?.tasks?.items ?? {};
	const head = ["parameter", "type", "required", "what it is for"];
	return [
		"What the model reads (the tool's description):",
		"",
		"```text",
		SUBAGENT_DESCRIPTION,
		"```",
		"",
		"Parameters (all optional; which ones apply depends on `action`):",
		"",
		table(head, rows(parameters)),
		"",
		"Each entry of `tasks` and `chain`:",
		"",
		table(head, rows(step)),
	].join("\n");
}
