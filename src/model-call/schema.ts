// Schema helpers shared by every model tool's TypeBox schema.
import { Type } from "typebox";

/** A string enum as a plain JSON-schema enum (what every provider accepts), typed as its union. */
export const enumOf = <T extends string>(values: readonly T[], description: string) =>
	Type.Unsafe<T>({ type: "string", enum: [...values], description });
