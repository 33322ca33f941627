// A reviewer tool's arguments, checked against its one TypeBox schema (the same the model is
// shown) by the shared checker; a refusal names the tool and the shape it takes.
import type { Static, TObject } from "typebox";
import { argsShape, checkArgs } from "../../model-call/index.ts";

export type ParsedArgs<S extends TObject> = { ok: true; values: Static<S> } | { ok: false; error: string };

export function parseArgs<S extends TObject>(tool: string, args: unknown, schema: S): ParsedArgs<S> {
	const checked = checkArgs(schema, args);
	return checked.ok
		? { ok: true, values: checked.value }
		: { ok: false, error: `${tool}: ${checked.error}. Expected arguments ${argsShape(schema)}.` };
}
